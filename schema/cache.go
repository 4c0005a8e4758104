package schema

import (
	"encoding/json"
	"sync"
)

// MaxCached bounds the schemas a [Cache] keeps: a server whose tools
// change without end cannot make a cache grow without end. Past it, a
// schema is compiled at each call, as without a cache.
const MaxCached = 1024

// Cache compiles each schema text once: a shell, a batch or a test file
// calls the same tools again and again, and compiling a schema costs far
// more than validating against it. A schema that does not compile keeps
// its error.
//
// The zero value is ready to use. A Cache is safe for concurrent use and
// must not be copied after first use.
type Cache struct {
	mu sync.Mutex
	m  map[string]*cached // by the schema's text
}

// cached is one schema text, compiled once.
type cached struct {
	once sync.Once
	s    *Schema
	err  error
}

// Compile is [Compile], once for each text.
func (c *Cache) Compile(raw json.RawMessage) (*Schema, error) {
	key := string(raw)
	c.mu.Lock()
	e := c.m[key]
	if e == nil {
		e = &cached{}
		if c.m == nil {
			c.m = map[string]*cached{}
		}
		if len(c.m) < MaxCached {
			c.m[key] = e
		}
	}
	c.mu.Unlock()
	e.once.Do(func() { e.s, e.err = Compile(raw) })
	return e.s, e.err
}
