package faultserver

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// nonJSONLine is what non-json-lines writes before every answer.
const nonJSONLine = "hello from a misbehaving server"

// serveStdio answers the newline-delimited messages read from stdin on
// stdout until stdin ends (nil), ctx ends (its error) or a fault ends the
// server. A goroutine reads and logs, so the client's answers to a flood
// are drained while the flood is written.
func (s *server) serveStdio(ctx context.Context, stdin io.Reader, stdout io.WriteCloser) error {
	requests := make(chan message, 1024)
	done := make(chan struct{})
	defer close(done)
	var resume chan struct{} // flood-not-reading: closed once the flood is answered; stuck: never
	if s.cfg.Mode == "flood-not-reading" || s.cfg.Mode == "stuck" {
		resume = make(chan struct{})
	}
	go s.readStdio(stdin, requests, done, resume)
	go func() {
		// A write the client never reads (endless-line) must not outlive
		// the server: closing stdout ends it.
		select {
		case <-ctx.Done():
			stdout.Close()
		case <-done:
		}
	}()

	w := bufio.NewWriterSize(stdout, 64<<10)
	initialized, faulted, closed := false, false, false
	for {
		var m message
		var ok bool
		select {
		case <-ctx.Done():
			return ctx.Err()
		case m, ok = <-requests:
		}
		if !ok {
			if s.cfg.Mode == "ignores-sigterm" {
				<-ctx.Done() // stays until killed
				return ctx.Err()
			}
			return nil
		}
		if m.Method != "initialize" && m.isRequest() && initialized && s.ready != "" && s.cfg.Mode != "flood-not-reading" && s.cfg.Mode != "stuck" {
			// The fault is about to start: a script may now signal mcpctl.
			if err := os.WriteFile(s.ready, nil, 0o644); err != nil {
				fmt.Fprintf(s.stderr, "faultserver: creating ready file: %v\n", err)
			}
		}
		if !m.isRequest() || closed || s.cfg.Mode == "never-answers" {
			continue
		}
		if m.Method == "initialize" && s.cfg.Mode == "crash-before-init" {
			return errCrash
		}
		if resume != nil && m.Method == "tools/call" {
			err := s.floodNotReading(ctx, w, m, time.Now())
			close(resume)
			resume = nil // later calls are answered as mode ok answers them
			if err != nil {
				return err
			}
			continue
		}
		if m.Method != "initialize" && initialized && !faulted {
			faulted = true
			switch s.cfg.Mode {
			case "crash-after-init":
				return errCrash
			case "closes-stdout":
				closed = true
				if err := stdout.Close(); err != nil {
					return fmt.Errorf("closing stdout: %w", err)
				}
				continue
			case "huge-line":
				if err := writeFill(ctx, w, s.cfg.Size); err != nil {
					return err
				}
				if err := w.WriteByte('\n'); err != nil {
					return fmt.Errorf("writing: %w", err)
				}
			case "endless-line":
				return s.endlessLine(ctx, w, requests)
			}
		}
		initialized = initialized || m.Method == "initialize"
		out, err := s.handle(ctx, m, s.stdioSecrets(), "")
		if err != nil {
			return err
		}
		for _, msg := range out {
			if s.cfg.Mode == "non-json-lines" || s.cfg.Mode == "noisy-calls" && m.Method == "tools/call" {
				if _, err := w.WriteString(strings.Repeat(nonJSONLine+"\n", s.cfg.Count)); err != nil {
					return fmt.Errorf("writing: %w", err)
				}
			}
			if _, err := w.Write(append(msg, '\n')); err != nil {
				return fmt.Errorf("writing: %w", err)
			}
		}
		if err := w.Flush(); err != nil {
			return fmt.Errorf("writing: %w", err)
		}
		if s.cfg.Mode == "stuck" && m.Method == pauseAt(s.cfg.Mode) {
			s.stuck()
		}
	}
}

// pauseAt is the method after which readStdio stops reading stdin: the
// call that sets off flood-not-reading's flood, the listing after which
// stuck hangs.
func pauseAt(mode string) string {
	if mode == "stuck" {
		return "tools/list"
	}
	return "tools/call"
}

// stuck is where stuck hangs: stdin is no longer read and nothing more is
// answered. A script may now signal mcpctl, or wait for its timeout.
func (s *server) stuck() {
	if s.ready == "" {
		return
	}
	if err := os.WriteFile(s.ready, nil, 0o644); err != nil {
		fmt.Fprintf(s.stderr, "faultserver: creating ready file: %v\n", err)
	}
}

// readStdio logs every line and passes requests and notifications on until
// stdin ends or done is closed. Lines may be of any length. With a non-nil
// resume, it stops reading after passing on the first request of the
// method pauseAt names, until resume is closed: the server's stdin then
// fills up as a real server's does when it stops reading.
func (s *server) readStdio(stdin io.Reader, requests chan<- message, done, resume <-chan struct{}) {
	defer close(requests)
	br := bufio.NewReader(stdin)
	for {
		line, err := br.ReadBytes('\n')
		if line = bytes.TrimSpace(line); len(line) > 0 {
			s.log.record(object{"transport": "stdio"}, line)
			msgs, perr := parseMessages(line)
			if perr != nil {
				fmt.Fprintf(s.stderr, "faultserver: ignoring a line that is not JSON-RPC: %v\n", perr)
			}
			for _, m := range msgs {
				if m.Method == "" {
					continue // an answer to one of our requests: logged, that is all
				}
				select {
				case requests <- m:
				case <-done:
					return
				}
				if resume != nil && m.Method == pauseAt(s.cfg.Mode) {
					select {
					case <-resume:
						resume = nil
					case <-done:
						return
					}
				}
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				fmt.Fprintf(s.stderr, "faultserver: reading stdin: %v\n", err)
			}
			return
		}
	}
}

// floodNotReading answers tools/call m, which arrived at arrived, as
// flood-not-reading does: with stdin no longer read, it writes -n requests
// of method -method, creates the -ready file, and sends the answer -delay
// after the call arrived (or at once if the flood took longer).
func (s *server) floodNotReading(ctx context.Context, w *bufio.Writer, m message, arrived time.Time) error {
	for i := range s.cfg.Count {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if _, err := w.Write(append(request(fmt.Sprintf("flood-%d", i+1), s.cfg.Method, object{}), '\n')); err != nil {
			return fmt.Errorf("writing: %w", err)
		}
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("writing: %w", err)
	}
	if s.ready != "" {
		// The flood is written, so mcpctl has read it: a script may now
		// signal mcpctl while the server's stdin is full.
		if err := os.WriteFile(s.ready, nil, 0o644); err != nil {
			fmt.Fprintf(s.stderr, "faultserver: creating ready file: %v\n", err)
		}
	}
	if err := sleep(ctx, time.Until(arrived.Add(s.cfg.Delay))); err != nil {
		return err
	}
	if _, err := w.Write(append(response(m.ID, textResult("ok")), '\n')); err != nil {
		return fmt.Errorf("writing: %w", err)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("writing: %w", err)
	}
	return nil
}

// stdioSecrets is what echo-secret echoes over stdio.
func (s *server) stdioSecrets() []string {
	if v := os.Getenv(s.cfg.SecretEnv); v != "" {
		return []string{v}
	}
	return []string{"(no " + s.cfg.SecretEnv + " in the environment)"}
}

// endlessLine starts a log notification and never ends it: it writes x's
// until -size bytes (forever if 0), then waits, until stdin ends, ctx ends
// or the client stops reading.
func (s *server) endlessLine(ctx context.Context, w *bufio.Writer, requests <-chan message) error {
	if _, err := w.WriteString(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"`); err != nil {
		return fmt.Errorf("writing: %w", err)
	}
	chunk := bytes.Repeat([]byte("x"), 64<<10)
	for written := int64(0); s.cfg.Size == 0 || written < s.cfg.Size; {
		select {
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		n := int64(len(chunk))
		if s.cfg.Size > 0 {
			n = min(n, s.cfg.Size-written)
		}
		if _, err := w.Write(chunk[:n]); err != nil {
			return nil // the client stopped reading: done
		}
		written += n
	}
	if err := w.Flush(); err != nil {
		return nil
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case _, ok := <-requests:
			if !ok {
				return nil
			}
		}
	}
}

// writeFill writes n bytes of 'x'.
func writeFill(ctx context.Context, w io.Writer, n int64) error {
	chunk := bytes.Repeat([]byte("x"), 64<<10)
	for n > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		k := min(n, int64(len(chunk)))
		if _, err := w.Write(chunk[:k]); err != nil {
			return fmt.Errorf("writing: %w", err)
		}
		n -= k
	}
	return nil
}
