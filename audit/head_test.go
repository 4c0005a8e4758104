package audit

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseHead(t *testing.T) {
	hash := strings.Repeat("ab", 32)
	tests := []struct {
		in      string
		want    Head
		wantErr bool
	}{
		{"3:" + hash, Head{3, hash}, false},
		{" 3:" + hash + "\n", Head{3, hash}, false},
		{"0:", Head{}, false},
		{"0:" + hash, Head{}, true},
		{"3:", Head{}, true},
		{"3:abc", Head{}, true},
		{"-1:" + hash, Head{}, true},
		{hash, Head{}, true},
	}
	for _, tt := range tests {
		got, err := ParseHead(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseHead(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
		if err == nil && got.String() != strings.TrimSpace(tt.in) {
			t.Errorf("Head.String() = %q, want %q", got.String(), strings.TrimSpace(tt.in))
		}
	}
}

// lineHashes are the hashes of a trail's lines, in order.
func lineHashes(t *testing.T, data []byte) []string {
	t.Helper()
	var hs []string
	for _, l := range strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n") {
		h, ok := hashOf([]byte(strings.TrimSuffix(l, "\n")))
		if !ok {
			t.Fatalf("no hash in %q", l)
		}
		hs = append(hs, h)
	}
	return hs
}

func TestVerifyFile(t *testing.T) {
	path, data := writeTrail(t, nil, 3)
	hs := lineHashes(t, data)
	head, err := os.ReadFile(HeadPath(path))
	if err != nil {
		t.Fatal(err)
	}
	if string(head) != "3:"+hs[2]+"\n" {
		t.Fatalf("head = %q, want 3:<last hash>", head)
	}
	if st, err := os.Stat(HeadPath(path)); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("head mode = %v, %v; want 0600", st.Mode(), err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	legacy := func(dir string) {
		// A line as trails were written before sequence numbers.
		e := &Entry{Method: "tools/call", Name: "old", Chain: ChainSHA256}
		line, err := seal(e, nil)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "t"), line, 0o600)
	}
	tests := []struct {
		name       string
		setup      func(dir string) // writes dir/t and dir/t.head
		given      *Head
		wantCount  int
		wantLine   int    // the VerifyError's line, -1 for none
		wantErr    string // in the error; "" for none
		unanchored bool
	}{
		{name: "intact", wantCount: 3, wantLine: -1},
		{name: "last record removed", setup: func(dir string) { os.WriteFile(filepath.Join(dir, "t"), []byte(lines[0]+lines[1]), 0o600) },
			wantErr: "the trail ends at record 2, but its head " + filepath.Join("DIR", "t.head") + " says 3: records were removed from its end"},
		{name: "emptied", setup: func(dir string) { os.WriteFile(filepath.Join(dir, "t"), nil, 0o600) },
			wantErr: "the trail is empty, but its head"},
		{name: "trail removed", setup: func(dir string) { os.Remove(filepath.Join(dir, "t")) },
			wantErr: "the trail is missing, but its head"},
		{name: "head removed", setup: func(dir string) { os.Remove(filepath.Join(dir, "t.head")) },
			wantErr: "head " + filepath.Join("DIR", "t.head") + " is missing"},
		{name: "head removed, a head given", setup: func(dir string) { os.Remove(filepath.Join(dir, "t.head")) },
			given: &Head{3, hs[2]}, wantCount: 3, wantLine: -1},
		{name: "emptied with its head", setup: func(dir string) {
			os.WriteFile(filepath.Join(dir, "t"), nil, 0o600)
			os.Remove(filepath.Join(dir, "t.head"))
		},
			wantErr: "the trail is empty and its head"},
		{name: "middle removed", setup: func(dir string) { os.WriteFile(filepath.Join(dir, "t"), []byte(lines[0]+lines[2]), 0o600) },
			wantLine: 2, wantErr: "its prev is not the previous line's hash"},
		{name: "head behind", setup: func(dir string) { os.WriteFile(filepath.Join(dir, "t.head"), []byte("2:"+hs[1]), 0o600) },
			wantErr: "the trail has 3 records, but its head"},
		{name: "head names another record", setup: func(dir string) { os.WriteFile(filepath.Join(dir, "t.head"), []byte("3:"+hs[1]), 0o600) },
			wantErr: "is not the one its head"},
		{name: "head not a head", setup: func(dir string) { os.WriteFile(filepath.Join(dir, "t.head"), []byte("three"), 0o600) },
			wantErr: "is not a head"},
		{name: "a head given, the trail grown since", given: &Head{2, hs[1]}, wantCount: 3, wantLine: -1},
		{name: "a head given, the trail cut with its head", given: &Head{3, hs[2]},
			setup: func(dir string) {
				os.WriteFile(filepath.Join(dir, "t"), []byte(lines[0]+lines[1]), 0o600)
				os.WriteFile(filepath.Join(dir, "t.head"), []byte("2:"+hs[1]), 0o600)
			},
			wantErr: "the trail ends at record 2, but the head given says 3"},
		{name: "a head given, naming another record", given: &Head{2, hs[0]}, wantErr: "the trail's record 2 is not the one the head given names"},
		{name: "written before heads", setup: func(dir string) { legacy(dir); os.Remove(filepath.Join(dir, "t.head")) },
			wantCount: 1, wantLine: -1, unanchored: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "t"), data, 0o600)
			os.WriteFile(filepath.Join(dir, "t.head"), head, 0o600)
			if tt.setup != nil {
				tt.setup(dir)
			}
			rep, err := VerifyFile(filepath.Join(dir, "t"), nil, tt.given)
			want := strings.ReplaceAll(tt.wantErr, "DIR", dir)
			var ve *VerifyError
			switch {
			case want == "" && err != nil:
				t.Fatalf("VerifyFile: %v", err)
			case want != "" && (!errors.As(err, &ve) || !strings.Contains(err.Error(), want)):
				t.Fatalf("VerifyFile: got %v, want a VerifyError with %q", err, want)
			case want != "" && tt.wantLine != -1 && ve.Line != tt.wantLine:
				t.Fatalf("VerifyFile named line %d, want %d", ve.Line, tt.wantLine)
			case want == "" && (rep.Head.Count != tt.wantCount || rep.Unanchored != tt.unanchored):
				t.Fatalf("VerifyFile = %+v, want %d records, unanchored %v", rep, tt.wantCount, tt.unanchored)
			}
		})
	}
	if _, err := VerifyFile(filepath.Join(t.TempDir(), "none"), nil, nil); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("VerifyFile of no trail and no head = %v, want fs.ErrNotExist", err)
	}
}

// A trail cut behind mcpctl's back takes no more records.
func TestAppendChecksTheHead(t *testing.T) {
	path, data := writeTrail(t, nil, 3)
	lines := strings.SplitAfter(string(data), "\n")
	w, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(lines[0]+lines[1]), 0o600); err != nil {
		t.Fatal(err)
	}
	err = w.Append(&Entry{Method: "tools/call", Name: "x", Sent: true})
	var ae *AppendError
	if !errors.As(err, &ae) || !strings.Contains(err.Error(), "is not the one its head") || !ae.Sent {
		t.Fatalf("Append to a cut trail = %v, want an AppendError naming the head", err)
	}
	if _, err := Open(path, nil); err == nil || !strings.Contains(err.Error(), "is not the one its head") {
		t.Errorf("Open of a cut trail = %v, want an error", err)
	}
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path, nil); err == nil || !strings.Contains(err.Error(), "the trail is empty but its head") {
		t.Errorf("Open of an emptied trail = %v, want an error", err)
	}
}

// A trail written before heads gets one on Open, counting its lines, and
// its next record's sequence number follows them.
func TestOpenAnchorsAnOldTrail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.jsonl")
	var data []byte
	prev := ""
	for range 2 {
		e := &Entry{Method: "tools/call", Name: "old", Chain: ChainSHA256, Prev: prev}
		line, err := seal(e, nil)
		if err != nil {
			t.Fatal(err)
		}
		data, prev = append(data, line...), e.Hash
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if rep, err := VerifyFile(path, nil, nil); err != nil || !rep.Unanchored || rep.Head.Count != 2 {
		t.Fatalf("VerifyFile of an old trail = %+v, %v; want 2 unanchored records", rep, err)
	}
	w, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(HeadPath(path)); string(got) != "2:"+prev+"\n" {
		t.Fatalf("head = %q, want 2:%s", got, prev)
	}
	e := &Entry{Method: "tools/call", Name: "new"}
	if err := w.Append(e); err != nil {
		t.Fatal(err)
	}
	if e.Seq != 3 {
		t.Errorf("Seq = %d, want 3", e.Seq)
	}
	if rep, err := VerifyFile(path, nil, nil); err != nil || rep.Unanchored || rep.Head != (Head{3, e.Hash}) {
		t.Fatalf("VerifyFile = %+v, %v; want 3 anchored records", rep, err)
	}
	// After a record with a sequence number, one without, or one with the
	// wrong number, was added by hand.
	for _, seq := range []int64{0, 5} {
		bad := &Entry{Method: "tools/call", Name: "forged", Seq: seq, Chain: ChainSHA256, Prev: e.Hash}
		line, err := seal(bad, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Verify(strings.NewReader(string(mustRead(t, path))+string(line)), nil)
		var ve *VerifyError
		if !errors.As(err, &ve) || ve.Line != 4 || !strings.Contains(err.Error(), "sequence number") {
			t.Errorf("Verify with a line of seq %d added = %v, want line 4 named", seq, err)
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// A record that cannot be written is an AppendError naming the file; the
// Writer keeps the first for the command to fail with.
func TestAppendFailureIsKept(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here")
	}
	w, err := Open("/dev/full", nil)
	if err != nil {
		t.Fatal(err)
	}
	if w.Err() != nil {
		t.Fatalf("Err before any append = %v", w.Err())
	}
	first := w.Append(&Entry{Method: "tools/call", Name: "echo", Sent: true})
	second := w.Append(&Entry{Method: "prompts/get", Name: "p"})
	want := `audit trail /dev/full: the tools/call of "echo" was sent but is not recorded: no space left on device`
	if first == nil || first.Error() != want {
		t.Fatalf("Append = %v, want %s", first, want)
	}
	if second == nil || !strings.Contains(second.Error(), `the prompts/get of "p" was not sent, and is not recorded`) {
		t.Errorf("second Append = %v", second)
	}
	if w.Err() != first {
		t.Errorf("Err = %v, want the first failure", w.Err())
	}
	if _, err := os.Stat(HeadPath("/dev/full")); err == nil {
		t.Errorf("a head was written beside a device")
	}
}
