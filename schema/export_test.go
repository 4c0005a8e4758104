package schema

import "slices"

// CompileObserved is Compile without the cache, calling onLoad with every
// URL the library asks to load, so tests can prove none is fetched.
var CompileObserved = compile

// Compiled lists the definitions c has compiled, sorted.
func (c *Checker) Compiled() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	keys := make([]string, 0, len(c.defs))
	for k := range c.defs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
