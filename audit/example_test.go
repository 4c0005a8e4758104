package audit_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/mcpctl/mcpctl/audit"
)

// A trail written with a key verifies with that key only.
func Example() {
	dir, _ := os.MkdirTemp("", "audit")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "audit.jsonl")
	key := []byte("a long random secret")

	w, err := audit.Open(path, key)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, name := range []string{"add", "echo"} {
		e := &audit.Entry{Method: "tools/call", Name: name, Decision: audit.Decision{Allowed: true}, Sent: true}
		if err := w.Append(e); err != nil {
			fmt.Println(err)
			return
		}
	}

	f, _ := os.Open(path)
	defer f.Close()
	n, err := audit.Verify(f, key)
	fmt.Println(n, err)

	f.Seek(0, 0)
	_, err = audit.Verify(f, nil)
	fmt.Println(err)
	// Output:
	// 2 <nil>
	// line 1 does not verify: it is HMAC-chained: give the key it was written with (--audit-key env:VAR)
}
