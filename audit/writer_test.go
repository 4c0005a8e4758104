package audit

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// A Writer keeps the trail and its head open between records; what is
// done to either behind its back between two records must show as it did
// when both were opened per record.
func TestAppendBehindItsBack(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, path string)
	}{
		{"head removed", func(t *testing.T, path string) { must(t, os.Remove(HeadPath(path))) }},
		{"head moved", func(t *testing.T, path string) { must(t, os.Rename(HeadPath(path), path+".moved")) }},
		{"head replaced", func(t *testing.T, path string) {
			must(t, os.WriteFile(path+".new", mustRead(t, HeadPath(path)), 0o600))
			must(t, os.Rename(path+".new", HeadPath(path)))
		}},
		{"head padded", func(t *testing.T, path string) {
			must(t, os.WriteFile(HeadPath(path), append(mustRead(t, HeadPath(path)), "\n\n\n"...), 0o600))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, _ := writeTrail(t, nil, 2)
			w, err := Open(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			must(t, w.Append(&Entry{Method: "tools/call", Name: "before"}))
			tt.change(t, path)
			e := &Entry{Method: "tools/call", Name: "after"}
			must(t, w.Append(e))
			if got, want := string(mustRead(t, HeadPath(path))), "4:"+e.Hash+"\n"; got != want {
				t.Fatalf("head = %q, want %q", got, want)
			}
			if rep, err := VerifyFile(path, nil, nil); err != nil || rep.Head.Count != 4 {
				t.Fatalf("VerifyFile = %+v, %v; want 4 records", rep, err)
			}
		})
	}
}

// A trail moved away between two records is followed no further: the next
// record starts a trail at the path, and the moved one and its head are
// left as they were.
func TestAppendAfterTheTrailMoved(t *testing.T) {
	path, data := writeTrail(t, nil, 2)
	w, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	head := mustRead(t, HeadPath(path))
	must(t, os.Rename(path, path+".1"))
	must(t, os.Rename(HeadPath(path), HeadPath(path+".1")))
	e := &Entry{Method: "tools/call", Name: "x"}
	must(t, w.Append(e))
	if e.Seq != 1 || e.Prev != "" {
		t.Errorf("the record after the move has seq %d, prev %q; want the first of a new trail", e.Seq, e.Prev)
	}
	if got := mustRead(t, path+".1"); string(got) != string(data) {
		t.Errorf("the moved trail changed")
	}
	if got := mustRead(t, HeadPath(path+".1")); string(got) != string(head) {
		t.Errorf("the moved trail's head changed: %q, want %q", got, head)
	}
	for _, p := range []string{path, path + ".1"} {
		if _, err := VerifyFile(p, nil, nil); err != nil {
			t.Errorf("VerifyFile(%s) = %v", p, err)
		}
	}
}

// The last line rewritten in place, the trail's size unchanged, is seen:
// the Writer does not chain onto a record it did not write.
func TestAppendSeesTheLastLineRewritten(t *testing.T) {
	path, _ := writeTrail(t, nil, 2)
	w, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	e := &Entry{Method: "tools/call", Name: "x"}
	must(t, w.Append(e))
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteAt([]byte(strings.Repeat("0", 64)), st.Size()-3-64)
	f.Close()
	must(t, err)
	err = w.Append(&Entry{Method: "tools/call", Name: "y"})
	var ae *AppendError
	if !errors.As(err, &ae) || !strings.Contains(err.Error(), "is not the one its head") {
		t.Fatalf("Append after the last line was rewritten = %v, want an AppendError naming the head", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
