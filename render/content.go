package render

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpctl/mcpctl/client"
)

// ContentOptions say where decoded binary content goes and how much is
// said around it.
type ContentOptions struct {
	// SaveDir receives images, audio and resource blobs, created if missing.
	// A file already there is never replaced: the next free number is
	// taken (image-2.png when image-1.png exists), and the line for each
	// block names the file it went to.
	SaveDir string
	// CacheDir, used when SaveDir is empty, is a folder that mcpctl owns
	// and keeps bounded: each file written there is named after the time
	// of the run, and every write removes the files older than
	// [CacheMaxAge] and all but the newest [CacheMaxFiles].
	// With both empty, binary content is not written anywhere: its line
	// says "(not saved)" and Unsaved is called for it.
	CacheDir string
	// Bare leaves out the "[resource] URI (mimeType)" line above an
	// embedded resource's text, so that reading one resource into a file
	// gives exactly its text.
	Bare bool
	// Unsaved is called once for each binary block that was not saved
	// because neither SaveDir nor CacheDir was given; nil ignores them.
	Unsaved func()
	// Note receives remarks for a verbose run, such as a structured copy
	// of the content that was not printed; nil ignores them.
	Note func(msg string)
}

// CacheMaxFiles and CacheMaxAge bound [ContentOptions.CacheDir].
const (
	CacheMaxFiles = 100
	CacheMaxAge   = 7 * 24 * time.Hour
)

// Content writes the content blocks of a tool result and returns the files
// it wrote.
//
//   - text: as is, with a trailing newline added when missing; large texts
//     are written straight from the block, never copied whole;
//   - image, audio: base64-decoded into SaveDir (or CacheDir) as
//     image-N.png, audio-N.wav, … (N counts the files of this call, the
//     extension follows the MIME type, .bin when unknown), then a line such
//     as "[image image/png, 1234 bytes] saved to out/image-1.png", or
//     "[image image/png, 1234 bytes] (not saved)" with neither folder;
//   - resource_link: "[resource link] URI (name, mimeType) - description";
//   - resource (embedded): "[resource] URI (mimeType)" then its text, or
//     "[resource] URI (mimeType, N bytes) saved to FILE" for a blob;
//   - any other type: its JSON as the server sent it.
//
// The bracketed markers are dim on a colour terminal. On a terminal (TTY or
// colour) everything the server sent is sanitised ([Sanitize]): texts,
// URIs, names, MIME types, descriptions, roles. Piped output is
// byte-exact. A block that cannot
// be decoded does not stop the others: its error, which names the block as
// content[i], is joined into the returned error. An error writing to Out
// stops at once. No blocks at all is "(no content)" on a terminal, and
// nothing when piped.
func (p *Printer) Content(blocks []client.Content, opts ContentOptions) ([]string, error) {
	cw := p.contentWriter(opts)
	if len(blocks) == 0 {
		if !p.TTY {
			return nil, nil
		}
		return nil, p.label("(no content)")
	}
	var errs []error
	for i, c := range blocks {
		err := cw.block(c)
		if err = classify(err, "content["+strconv.Itoa(i)+"]", &errs); err != nil {
			return cw.files, err
		}
	}
	return cw.files, errors.Join(errs...)
}

// Messages writes the messages of a prompts/get result, each under a role
// header ("── user ──" on a terminal, "[user]" otherwise) followed by its
// content block, written as [Printer.Content] writes blocks; binary content
// is saved as opts say. Block errors name the block as messages[i].content.
func (p *Printer) Messages(msgs []client.PromptMessage, opts ContentOptions) error {
	cw := p.contentWriter(opts)
	var errs []error
	for i, m := range msgs {
		var header string
		switch {
		case !p.TTY:
			header = "[" + p.Untrusted(m.Role) + "]\n"
		case i == 0:
			header = cw.st.role.Render("── "+p.Untrusted(m.Role)+" ──") + "\n"
		default:
			// A blank line between messages on a terminal.
			header = "\n" + cw.st.role.Render("── "+p.Untrusted(m.Role)+" ──") + "\n"
		}
		if _, err := io.WriteString(cw.out, header); err != nil {
			return err
		}
		err := cw.block(m.Content)
		if err = classify(err, "messages["+strconv.Itoa(i)+"].content", &errs); err != nil {
			return err
		}
	}
	return errors.Join(errs...)
}

// Structured writes a tool result's structuredContent as indented JSON,
// under a dim "structuredContent:" label on a terminal. Empty raw writes
// nothing.
func (p *Printer) Structured(raw json.RawMessage) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	if p.TTY {
		if _, err := io.WriteString(p.out(), p.styles().dim.Render("structuredContent:")+"\n"); err != nil {
			return err
		}
	}
	return p.JSON(raw)
}

// ToolResult writes a tool result's content and structuredContent so that
// each is said once and the reader knows which is which:
//   - only content: as [Printer.Content] writes it;
//   - only structuredContent, or one text block that restates it (the
//     same JSON value, as the spec has servers write for older clients):
//     the structuredContent alone as indented JSON, so piped output is one
//     JSON document;
//   - one text block whose text is the value of structuredContent's only
//     field, a string (a file's text as {"content": "…"}, as filesystem
//     and git servers answer): the text alone;
//   - both, saying different things: each under a label, "content:" and
//     "structuredContent:" (dim on a colour terminal), piped or not.
//
// When a copy is left out, opts.Note hears which. It returns the files
// Content wrote.
func (p *Printer) ToolResult(content []client.Content, structured json.RawMessage, opts ContentOptions) ([]string, error) {
	hasStructured := len(bytes.TrimSpace(structured)) > 0 && string(bytes.TrimSpace(structured)) != "null"
	note := func(msg string) {
		if opts.Note != nil {
			opts.Note(msg)
		}
	}
	switch {
	case !hasStructured:
		return p.Content(content, opts)
	case len(content) == 0:
		return nil, p.JSON(structured)
	case restates(content, structured):
		note("the text content restates structuredContent (the same JSON): printed once, as structuredContent (-o json shows both)")
		return nil, p.JSON(structured)
	case holdsText(content, structured):
		note("structuredContent holds the text content as its only field: printed once, as text (-o json shows both)")
		return p.Content(content, opts)
	}
	if err := p.label("content:"); err != nil {
		return nil, err
	}
	files, cerr := p.Content(content, opts)
	if err := p.label("structuredContent:"); err != nil {
		return files, err
	}
	if err := p.JSON(structured); err != nil {
		return files, err
	}
	return files, cerr
}

// label writes a label line, dim on a colour terminal.
func (p *Printer) label(s string) error {
	_, err := io.WriteString(p.out(), p.styles().dim.Render(s)+"\n")
	return err
}

// restates reports whether content is a single text block holding the same
// JSON value as structured (key order and spacing aside; numbers compared
// as written).
func restates(content []client.Content, structured json.RawMessage) bool {
	if len(content) != 1 || content[0].Type != "text" || content[0].Annotations != nil {
		return false
	}
	text := content[0].Text
	if text == "" {
		return false
	}
	a, err := decodeJSONValue([]byte(text))
	if err != nil {
		return false
	}
	b, err := decodeJSONValue(structured)
	if err != nil {
		return false
	}
	return reflect.DeepEqual(a, b)
}

// holdsText reports whether structured is an object with one field, a
// string equal to the text of content's single text block (a trailing
// newline aside).
func holdsText(content []client.Content, structured json.RawMessage) bool {
	if len(content) != 1 || content[0].Type != "text" || content[0].Annotations != nil || content[0].Text == "" {
		return false
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(structured, &obj); err != nil || len(obj) != 1 {
		return false
	}
	var s string
	for _, v := range obj {
		if err := json.Unmarshal(v, &s); err != nil {
			return false
		}
	}
	text := content[0].Text
	return s == text || strings.TrimSuffix(s, "\n") == strings.TrimSuffix(text, "\n")
}

// decodeJSONValue decodes one JSON value, numbers as written, and nothing
// after it.
func decodeJSONValue(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("more than one JSON value")
	}
	return v, nil
}

func (p *Printer) contentWriter(opts ContentOptions) *contentWriter {
	cw := &contentWriter{out: p.out(), st: p.styles(), term: p.terminal(), dir: opts.SaveDir, bare: opts.Bare, onInvalid: p.OnInvalidText, unsaved: opts.Unsaved}
	if cw.dir == "" && opts.CacheDir != "" {
		cw.dir, cw.cache = opts.CacheDir, true
		cw.prefix = time.Now().Format("20060102-150405-")
	}
	return cw
}

// contentWriter carries what the blocks of one call share: the save
// directory, created lazily, the file counter and the files written.
type contentWriter struct {
	out  io.Writer
	st   styles
	term bool // sanitise what the server sent
	// onInvalid is Printer.OnInvalidText.
	onInvalid func()
	// unsaved is ContentOptions.Unsaved.
	unsaved func()
	dir     string
	// cache says dir is the bounded cache folder, whose file names start
	// with prefix.
	cache  bool
	prefix string
	bare   bool
	ready  bool
	n      int
	files  []string
}

// blockError is a problem with one block's data, as opposed to a failure to
// write output, which ends the whole call.
type blockError struct{ err error }

func (e *blockError) Error() string { return e.err.Error() }
func (e *blockError) Unwrap() error { return e.err }

// classify adds a block error, prefixed with where, to errs and returns nil,
// or returns any other error for the caller to stop with.
func classify(err error, where string, errs *[]error) error {
	if err == nil {
		return nil
	}
	var be *blockError
	if errors.As(err, &be) {
		*errs = append(*errs, fmt.Errorf("%s: %w", where, be.err))
		return nil
	}
	return err
}

// annotationsLine describes a block's annotations, as
// "audience user; priority 0.8; lastModified 2025-01-12T15:00:58Z", or ""
// when it has none.
func annotationsLine(a *client.ContentAnnotations) string {
	if a == nil {
		return ""
	}
	var parts []string
	if len(a.Audience) > 0 {
		parts = append(parts, "audience "+strings.Join(a.Audience, ","))
	}
	if a.Priority != nil {
		parts = append(parts, "priority "+strconv.FormatFloat(*a.Priority, 'g', -1, 64))
	}
	if a.LastModified != "" {
		parts = append(parts, "lastModified "+a.LastModified)
	}
	return strings.Join(parts, "; ")
}

func (cw *contentWriter) block(c client.Content) error {
	out := cw.out
	if a := annotationsLine(c.Annotations); a != "" {
		// Above the block: who it is for decides how it should be read.
		if err := cw.line("[annotations]", " "+a); err != nil {
			return err
		}
	}
	switch c.Type {
	case "text":
		if c.Text == "" && len(c.TextRaw) > 0 || !utf8.Valid(c.TextRaw) {
			// A large text the client left undecoded, or one whose
			// invalid UTF-8 the decoded text has lost (U+FFFD): the
			// bytes the server sent are written.
			return cw.textJSON(c.TextRaw)
		}
		return cw.text(c.Text)
	case "image", "audio":
		desc := c.Type
		if c.MIMEType != "" {
			desc += " " + c.MIMEType
		}
		file, size, err := cw.save(c.Type, extFor(c.MIMEType, ""), c.Data)
		if err != nil {
			return &blockError{fmt.Errorf("%s: %w", desc, err)}
		}
		return cw.line(fmt.Sprintf("[%s, %d bytes]", desc, size), savedTo(file))
	case "resource_link":
		var b strings.Builder
		b.WriteString(c.URI)
		b.WriteString(parens(c.Name, c.MIMEType))
		if c.Description != "" {
			b.WriteString(" - ")
			b.WriteString(strings.TrimSpace(plainCell(c.Description)))
		}
		return cw.line("[resource link]", " "+b.String())
	case "resource":
		if c.Resource == nil {
			return cw.line("[resource]", " (missing resource)")
		}
		return cw.resource(c.Resource)
	default:
		raw := c.Raw
		if raw == nil {
			var err error
			if raw, err = json.Marshal(c); err != nil {
				return &blockError{err}
			}
		}
		bw := bufio.NewWriterSize(out, textChunk)
		if cw.term {
			writeSanitized(bw, []byte(raw))
		} else {
			bw.Write(raw)
		}
		bw.WriteByte('\n')
		return bw.Flush()
	}
}

func (cw *contentWriter) resource(r *client.ResourceContents) error {
	switch {
	case r.Blob != nil:
		file, size, err := cw.save("resource", extFor(r.MIMEType, r.URI), *r.Blob)
		if err != nil {
			return &blockError{fmt.Errorf("resource %s: %w", r.URI, err)}
		}
		return cw.line("[resource]", " "+r.URI+parens(r.MIMEType, strconv.Itoa(size)+" bytes")+savedTo(file))
	case r.Text != nil:
		if cw.bare {
			return cw.text(*r.Text)
		}
		if err := cw.line("[resource]", " "+r.URI+parens(r.MIMEType)); err != nil {
			return err
		}
		return cw.text(*r.Text)
	default:
		return cw.line("[resource]", " "+r.URI+parens(r.MIMEType)+" (no text or blob)")
	}
}

// line writes a marker, dim on a colour terminal, then rest and a newline;
// both are sanitised on a terminal, as both can hold what a server sent.
func (cw *contentWriter) line(marker, rest string) error {
	if cw.term {
		marker, rest = Sanitize(marker), Sanitize(rest)
	}
	_, err := io.WriteString(cw.out, cw.st.dim.Render(marker)+rest+"\n")
	return err
}

// text writes a text block: as is when piped, sanitised on a terminal.
func (cw *contentWriter) text(s string) error {
	if !cw.term {
		return writeText(cw.out, s)
	}
	bw := bufio.NewWriterSize(cw.out, textChunk)
	if err := writeSanitized(bw, s); err != nil {
		return err
	}
	if !strings.HasSuffix(s, "\n") {
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// textJSON writes a text block given as its raw JSON string literal, as
// text writes the decoded text, decoding as it writes: a large text is
// never held decoded. Bytes that are not valid UTF-8 are written as they
// are, or as \xNN on a terminal, and reported to onInvalid. Invalid JSON is the block's error; what came before
// the problem has been written.
func (cw *contentWriter) textJSON(raw []byte) error {
	bw := bufio.NewWriterSize(cw.out, textChunk)
	var invalid bool
	endsInNewline, err := decodeJSONString(bw, raw, cw.term, &invalid)
	if invalid && cw.onInvalid != nil {
		cw.onInvalid()
	}
	if err != nil {
		if ferr := bw.Flush(); ferr != nil {
			return ferr
		}
		return &blockError{err}
	}
	if !endsInNewline {
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// writeText writes s and ends it with a newline. Text blocks can be tens of
// megabytes, so s is never copied whole: see writeString.
func writeText(w io.Writer, s string) error {
	if err := writeString(w, s); err != nil {
		return err
	}
	if !strings.HasSuffix(s, "\n") {
		_, err := io.WriteString(w, "\n")
		return err
	}
	return nil
}

// writeString writes s without copying it when w has WriteString (os.File,
// bytes.Buffer, bufio.Writer do), and through a small reused buffer
// otherwise, where io.WriteString would convert all of s to a []byte.
func writeString(w io.Writer, s string) error {
	if sw, ok := w.(io.StringWriter); ok {
		_, err := sw.WriteString(s)
		return err
	}
	if len(s) <= textChunk {
		_, err := w.Write([]byte(s))
		return err
	}
	buf := make([]byte, textChunk)
	for len(s) > 0 {
		n := copy(buf, s)
		if _, err := w.Write(buf[:n]); err != nil {
			return err
		}
		s = s[n:]
	}
	return nil
}

// textChunk is the piece size writeString copies through.
const textChunk = 64 << 10

// parens formats the non-empty parts as " (a, b)", or "" when all are empty.
func parens(parts ...string) string {
	var kept []string
	for _, s := range parts {
		if s != "" {
			kept = append(kept, s)
		}
	}
	if len(kept) == 0 {
		return ""
	}
	return " (" + strings.Join(kept, ", ") + ")"
}

// savedTo is the end of a binary block's line: where it went, or that it
// went nowhere (file "").
func savedTo(file string) string {
	if file == "" {
		return " (not saved)"
	}
	return " saved to " + file
}

// save decodes base64 data into the next file of the save directory and
// returns its path and size. With no directory it only measures the data
// and returns "" as the path.
func (cw *contentWriter) save(kind, ext, data string) (string, int, error) {
	if cw.dir == "" {
		size, err := decodeTo(io.Discard, data)
		if err != nil {
			return "", 0, err
		}
		if cw.unsaved != nil {
			cw.unsaved()
		}
		return "", size, nil
	}
	if err := cw.ensureDir(); err != nil {
		return "", 0, err
	}
	for {
		cw.n++
		name := filepath.Join(cw.dir, cw.prefix+kind+"-"+strconv.Itoa(cw.n)+ext)
		size, err := decodeToFile(name, data)
		if errors.Is(err, fs.ErrExist) {
			// Created exclusively: an earlier run's file, or another
			// process's, keeps its name and this one takes the next.
			continue
		}
		if err != nil {
			return "", 0, err
		}
		cw.files = append(cw.files, name)
		if cw.cache {
			pruneCache(cw.dir, cw.files, time.Now())
		}
		return name, size, nil
	}
}

// pruneCache removes from the cache folder dir the files older than
// [CacheMaxAge] and all but the newest [CacheMaxFiles], never one of keep
// (this run's). It is best effort: a file that cannot be removed stays
// until the next write.
func pruneCache(dir string, keep []string, now time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type file struct {
		path string
		mod  time.Time
	}
	var files []file
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		files = append(files, file{filepath.Join(dir, e.Name()), info.ModTime()})
	}
	// Newest first; equal times by name, newest name first, so the order
	// is the same on every run.
	sort.Slice(files, func(i, j int) bool {
		if !files[i].mod.Equal(files[j].mod) {
			return files[i].mod.After(files[j].mod)
		}
		return files[i].path > files[j].path
	})
	for i, f := range files {
		if slices.Contains(keep, f.path) {
			continue
		}
		if i >= CacheMaxFiles || now.Sub(f.mod) > CacheMaxAge {
			os.Remove(f.path)
		}
	}
}

func (cw *contentWriter) ensureDir() error {
	if cw.ready {
		return nil
	}
	// Private, as the files in it (0600): they hold what a session
	// carried. A folder that exists keeps the mode its owner gave it.
	if err := os.MkdirAll(cw.dir, 0o700); err != nil {
		if cw.cache {
			return fmt.Errorf("creating the cache folder for binary content: %w", err)
		}
		return fmt.Errorf("creating the save directory: %w", err)
	}
	cw.ready = true
	return nil
}

// decodeToFile writes the bytes that base64 data encodes to name, streaming
// so that a large blob is never held decoded in memory. It accepts what
// servers send in practice: padded or unpadded standard base64, line
// breaks, and a data: URL prefix. A file is left behind only on success.
// The file is created, never opened: when name exists the error is
// [fs.ErrExist] and nothing is written.
func decodeToFile(name, data string) (size int, err error) {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return 0, err
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = cerr
		}
		if err != nil {
			os.Remove(name)
		}
	}()
	return decodeBase64(f, data, func() error {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return err
		}
		return f.Truncate(0)
	})
}

// decodeTo decodes base64 data as decodeToFile does into w, which must
// take the same bytes twice (io.Discard does): it only measures.
func decodeTo(w io.Writer, data string) (int, error) {
	return decodeBase64(w, data, func() error { return nil })
}

// decodeBase64 writes what data encodes to w; reset empties w before a
// second try without padding.
func decodeBase64(w io.Writer, data string, reset func() error) (int, error) {
	if rest, ok := strings.CutPrefix(data, "data:"); ok {
		if _, payload, found := strings.Cut(rest, ";base64,"); found {
			data = payload
		}
	}
	n, err := io.Copy(w, base64.NewDecoder(base64.StdEncoding, strings.NewReader(data)))
	if err != nil && !strings.Contains(data, "=") && isCorruptInput(err) {
		// Unpadded input fails only at its very end; decode again without
		// padding rather than scanning everything first to guess.
		if err2 := reset(); err2 != nil {
			return 0, err2
		}
		n, err = io.Copy(w, base64.NewDecoder(base64.RawStdEncoding, strings.NewReader(data)))
	}
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return 0, errors.New("invalid base64: input ends inside a 4-character group")
	case isCorruptInput(err):
		return 0, fmt.Errorf("invalid base64: %w", err)
	case err != nil:
		return 0, err
	}
	return int(n), nil
}

// isCorruptInput tells malformed base64 from failures to write the file.
func isCorruptInput(err error) bool {
	var ce base64.CorruptInputError
	return errors.As(err, &ce) || errors.Is(err, io.ErrUnexpectedEOF)
}

// extFor picks a file extension for a MIME type. The table is ours rather
// than the system's mime.types so that names do not vary between machines.
// For unknown types, a short extension of the resource URI's path is used
// when there is one, else ".bin".
func extFor(mimeType, uri string) string {
	mt, _, _ := strings.Cut(mimeType, ";")
	mt = strings.ToLower(strings.TrimSpace(mt))
	switch mt {
	case "image/png":
		return ".png"
	case "image/jpeg", "image/jpg", "image/pjpeg":
		return ".jpg"
	case "image/gif":
		return ".gif"
	case "image/webp":
		return ".webp"
	case "image/svg+xml":
		return ".svg"
	case "image/bmp":
		return ".bmp"
	case "image/x-icon", "image/vnd.microsoft.icon":
		return ".ico"
	case "image/avif":
		return ".avif"
	case "audio/wav", "audio/x-wav", "audio/wave", "audio/vnd.wave":
		return ".wav"
	case "audio/mpeg", "audio/mp3":
		return ".mp3"
	case "audio/ogg", "audio/opus":
		return ".ogg"
	case "audio/flac", "audio/x-flac":
		return ".flac"
	case "audio/webm":
		return ".webm"
	case "audio/mp4", "audio/aac", "audio/x-m4a":
		return ".m4a"
	case "application/pdf":
		return ".pdf"
	case "application/json":
		return ".json"
	case "application/zip":
		return ".zip"
	case "application/gzip":
		return ".gz"
	case "text/plain":
		return ".txt"
	case "text/html":
		return ".html"
	case "text/csv":
		return ".csv"
	case "text/markdown":
		return ".md"
	}
	if uri != "" {
		p := uri
		if u, err := url.Parse(uri); err == nil && u.Path != "" {
			p = u.Path
		}
		if ext := path.Ext(p); len(ext) >= 2 && len(ext) <= 8 && isAlnum(ext[1:]) {
			return strings.ToLower(ext)
		}
	}
	return ".bin"
}

func isAlnum(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
