package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// httpHost is the test binary httphost: a scripted Streamable HTTP host
// that initializes a session and calls a tool without listing the tools
// first (as mcpctl call does), so the scripts can call a tool a proxy
// hides. It prints the body of the call's answer.
//
//	httphost [-bearer FILE] URL TOOL ARGUMENTS
func httpHost(args []string) int {
	fs := flag.NewFlagSet("httphost", flag.ContinueOnError)
	bearerFile := fs.String("bearer", "", "send the token in this file as a bearer token")
	if err := fs.Parse(args); err != nil || fs.NArg() != 3 {
		fmt.Fprintln(os.Stderr, "usage: httphost [-bearer FILE] URL TOOL ARGUMENTS")
		return 2
	}
	url, tool, arguments := fs.Arg(0), fs.Arg(1), fs.Arg(2)
	var token string
	if *bearerFile != "" {
		b, err := os.ReadFile(*bearerFile)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		token = strings.TrimSpace(string(b))
	}
	client := &http.Client{Timeout: time.Minute}
	sid := ""
	post := func(body string) ([]byte, error) {
		req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader([]byte(body)))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		if v := resp.Header.Get("Mcp-Session-Id"); v != "" {
			sid = v
		}
		b, err := io.ReadAll(resp.Body)
		if resp.StatusCode/100 != 2 {
			return nil, fmt.Errorf("HTTP %d: %s", resp.StatusCode, b)
		}
		return b, err
	}
	steps := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"httphost","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + arguments + `}}`,
	}
	var last []byte
	for _, s := range steps {
		b, err := post(s)
		if err != nil {
			fmt.Fprintln(os.Stderr, "httphost:", err)
			return 1
		}
		last = b
	}
	os.Stdout.Write(last)
	fmt.Println()
	return 0
}
