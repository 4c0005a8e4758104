package schema

// CompileObserved is Compile without the cache, calling onLoad with every
// URL the library asks to load, so tests can prove none is fetched.
var CompileObserved = compile
