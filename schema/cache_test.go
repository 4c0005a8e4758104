package schema_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mcpctl/mcpctl/schema"
)

// TestCache: a text is compiled once, however many goroutines ask; another
// text gets a schema of its own; a schema that does not compile keeps its
// error; past MaxCached texts, a new one is compiled at each call.
func TestCache(t *testing.T) {
	t.Parallel()
	var c schema.Cache
	raw := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)
	first, err := c.Compile(raw)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan *schema.Schema)
	for range 8 {
		go func() {
			s, _ := c.Compile(append(json.RawMessage(nil), raw...))
			got <- s
		}()
	}
	for range 8 {
		if s := <-got; s != first {
			t.Fatal("the same text was compiled again")
		}
	}
	if other, err := c.Compile(json.RawMessage(`{"type":"string"}`)); err != nil || other == first {
		t.Fatalf("another text: %p, %v; want a schema of its own", other, err)
	}
	bad := json.RawMessage(`{"type":"object","required":"n"}`)
	for range 2 {
		if _, err := c.Compile(bad); err == nil {
			t.Fatal("a schema that does not compile gave no error")
		}
	}

	var full schema.Cache
	for i := range schema.MaxCached {
		if _, err := full.Compile(json.RawMessage(fmt.Sprintf(`{"maxLength":%d}`, i))); err != nil {
			t.Fatal(err)
		}
	}
	kept, _ := full.Compile(json.RawMessage(`{"maxLength":0}`))
	if again, _ := full.Compile(json.RawMessage(`{"maxLength":0}`)); again != kept {
		t.Error("a text compiled before the cache was full was compiled again")
	}
	extra := json.RawMessage(`{"minLength":1}`)
	a, _ := full.Compile(extra)
	b, _ := full.Compile(extra)
	if a == nil || a == b {
		t.Errorf("past %d texts a new one was kept (%p, %p); want it compiled at each call", schema.MaxCached, a, b)
	}
}
