package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func writeTrail(t *testing.T, key []byte, n int) (string, []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	w, err := Open(path, key)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		e := &Entry{
			Time:     time.Date(2026, 11, 23, 12, 0, i, 0, time.UTC),
			Server:   "demo",
			Method:   "tools/call",
			Name:     "add",
			Args:     json.RawMessage(fmt.Sprintf(`{"a":%d,"b":"<x>"}`, i)),
			Decision: Decision{Allowed: true},
			Sent:     true,
			Result:   Digest([]byte(`{}`)),
		}
		if err := w.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, data
}

func TestVerify(t *testing.T) {
	key := []byte("secret")
	hashed := func() []byte { _, d := writeTrail(t, nil, 3); return d }
	keyed := func() []byte { _, d := writeTrail(t, key, 3); return d }
	lines := func(d []byte) []string { return strings.SplitAfter(string(d), "\n") }
	tests := []struct {
		name     string
		data     []byte
		key      []byte
		wantN    int
		wantLine int // 0: verifies
	}{
		{"empty", nil, nil, 0, 0},
		{"hash chain", hashed(), nil, 3, 0},
		{"hmac chain", keyed(), key, 3, 0},
		{"hmac chain without key", keyed(), nil, 0, 1},
		{"hmac chain wrong key", keyed(), []byte("other"), 0, 1},
		{"hash chain checked with a key", hashed(), key, 0, 1},
		{"line removed", []byte(func() string { l := lines(hashed()); return l[0] + l[2] }()), nil, 1, 2},
		{"first line removed", []byte(func() string { l := lines(hashed()); return l[1] + l[2] }()), nil, 0, 1},
		{"lines swapped", []byte(func() string { l := lines(hashed()); return l[0] + l[2] + l[1] }()), nil, 1, 2},
		{"torn last line", func() []byte { d := hashed(); return d[:len(d)-5] }(), nil, 2, 3},
		{"blank line", append(hashed(), '\n'), nil, 3, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := Verify(bytes.NewReader(tt.data), tt.key)
			var ve *VerifyError
			switch {
			case tt.wantLine == 0 && err != nil:
				t.Fatalf("Verify: %v", err)
			case tt.wantLine != 0 && !errors.As(err, &ve):
				t.Fatalf("Verify: got %v, want a VerifyError for line %d", err, tt.wantLine)
			case tt.wantLine != 0 && ve.Line != tt.wantLine:
				t.Fatalf("Verify named line %d (%v), want %d", ve.Line, err, tt.wantLine)
			}
			if n != tt.wantN {
				t.Errorf("Verify verified %d lines, want %d", n, tt.wantN)
			}
		})
	}
}

// TestVerifyEveryByte changes each byte of each line in turn: each change
// must be caught on that line, not before or after it.
func TestVerifyEveryByte(t *testing.T) {
	for _, key := range [][]byte{nil, []byte("k")} {
		_, data := writeTrail(t, key, 3)
		line, start := 1, 0
		for i := range data {
			bad := bytes.Clone(data)
			bad[i] ^= 0x01
			_, err := Verify(bytes.NewReader(bad), key)
			var ve *VerifyError
			if !errors.As(err, &ve) || ve.Line != line {
				t.Fatalf("key %q: changing byte %d (%q) of line %d: Verify = %v", key, i-start, data[i], line, err)
			}
			if data[i] == '\n' {
				line, start = line+1, i+1
			}
		}
	}
}

// TestAppendConcurrent appends from many Writers at once, each with its
// own file descriptor as separate processes have: the lock keeps one chain.
func TestAppendConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	const writers, each = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w, err := Open(path, []byte("k"))
			if err != nil {
				errs <- err
				return
			}
			for j := range each {
				if err := w.Append(&Entry{Method: "tools/call", Name: fmt.Sprintf("w%d-%d", i, j), Sent: true}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n, err := Verify(f, []byte("k"))
	if err != nil || n != writers*each {
		t.Fatalf("Verify = %d, %v; want %d lines, nil", n, err, writers*each)
	}
}

func TestDamagedTail(t *testing.T) {
	path, data := writeTrail(t, nil, 2)
	w, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data[:len(data)-3], 0o600); err != nil {
		t.Fatal(err)
	}
	if err := w.Append(&Entry{Method: "tools/call", Name: "x"}); err == nil || !strings.Contains(err.Error(), "audit verify") {
		t.Errorf("Append to a damaged trail = %v, want an error pointing to audit verify", err)
	}
	if _, err := Open(path, nil); err == nil || !strings.Contains(err.Error(), "the last line is not a complete audit line") {
		t.Errorf("Open of a damaged trail = %v, want an error", err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, data[:len(data)-3]) {
		t.Errorf("the damaged trail was changed")
	}
}

func TestRead(t *testing.T) {
	_, data := writeTrail(t, nil, 2)
	entries, err := Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || entries[1].Name != "add" || entries[1].Prev != entries[0].Hash || entries[0].Prev != "" {
		t.Fatalf("Read = %+v", entries)
	}
	if string(entries[0].Args) != `{"a":0,"b":"<x>"}` {
		t.Errorf("args = %s, want them as written, HTML characters unescaped", entries[0].Args)
	}
	if _, err := Read(strings.NewReader(string(data) + "nope\n")); err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("Read of a non-JSON line = %v, want an error naming line 3", err)
	}
}

func TestMaskArgs(t *testing.T) {
	schema := `{"type":"object","properties":{"password":{"type":"string","writeOnly":true},"db":{"type":"object","properties":{"token":{"writeOnly":true},"host":{}}}}}`
	tests := []struct {
		name   string
		args   string
		schema string
		names  []string
		want   string
	}{
		{"nothing to mask", `{"a":1}`, schema, nil, `{"a":1}`},
		{"writeOnly", `{"password":"pw","user":"u"}`, schema, nil, `{"password":"****","user":"u"}`},
		{"nested writeOnly", `{"db":{"host":"h","token":"t"}}`, schema, nil, `{"db":{"host":"h","token":"****"}}`},
		{"named by the policy", `{"query":"select","user":"u"}`, "", []string{"query"}, `{"query":"****","user":"u"}`},
		{"not an object", `[1,2]`, schema, []string{"a"}, `[1,2]`},
		// A Go server reads a member in another case as the argument.
		{"named, in another case", `{"Query":"select","user":"u"}`, "", []string{"query"}, `{"Query":"****","user":"u"}`},
		{"writeOnly, in another case", `{"PassWord":"pw","DB":{"TOKEN":"t"}}`, schema, nil, `{"DB":{"TOKEN":"****"},"PassWord":"****"}`},
		{"none", ``, schema, nil, ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := MaskArgs(json.RawMessage(tt.args), json.RawMessage(tt.schema), tt.names)
			if string(got) != tt.want {
				t.Errorf("MaskArgs = %s, want %s", got, tt.want)
			}
		})
	}
}
