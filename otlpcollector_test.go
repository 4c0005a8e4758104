package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
)

// otlpCollector is `otlpcollector -ready FILE -out DIR`, an OpenTelemetry
// collector's OTLP/HTTP receiver for scripts: it listens on 127.0.0.1:0,
// writes its URL to FILE once it accepts connections (for waitfile), and
// writes the body of each POST to /v1/traces into DIR as N.json, with its
// Content-Type in N.type, and appends it as a line to DIR/all.ndjson
// (however the spans were batched). It serves until killed.
func otlpCollector(args []string) int {
	fs := flag.NewFlagSet("otlpcollector", flag.ContinueOnError)
	ready := fs.String("ready", "", "write the URL to `FILE` once listening")
	out := fs.String("out", ".", "write each body into `DIR`")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var mu sync.Mutex
	n := 0
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" {
			http.Error(w, "not a trace export", http.StatusNotFound)
			return
		}
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		n++
		name := filepath.Join(*out, fmt.Sprint(n))
		// Written under a temporary name first, so that a script waiting
		// for N.json reads it whole.
		os.WriteFile(name+".type", []byte(r.Header.Get("Content-Type")+"\n"), 0o644)
		os.WriteFile(name+".tmp", body, 0o644)
		os.Rename(name+".tmp", name+".json")
		if f, err := os.OpenFile(filepath.Join(*out, "all.ndjson"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err == nil {
			f.Write(append(body, '\n'))
			f.Close()
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, "{}")
	})
	url := "http://" + ln.Addr().String()
	if err := os.WriteFile(*ready+".tmp", []byte(url), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	os.Rename(*ready+".tmp", *ready)
	return exitOf(http.Serve(ln, h))
}

func exitOf(err error) int {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
