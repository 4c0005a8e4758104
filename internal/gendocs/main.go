// Command gendocs writes mcpctl's command reference from its cobra tree:
// docs/reference/*.md, one page per command and per help topic, which the
// repository keeps (a test fails when they are stale), and, with -man DIR,
// man pages, which packagers generate when they build a release.
//
//	go run ./internal/gendocs                 # docs/reference
//	go run ./internal/gendocs -man ./man      # and man pages in ./man
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	md := flag.String("md", "docs/reference", "write the Markdown reference to `DIR`")
	man := flag.String("man", "", "also write man pages (section 1) to `DIR`")
	flag.Parse()
	if err := writeMarkdown(*md); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
	if *man != "" {
		if err := writeMan(*man); err != nil {
			fmt.Fprintln(os.Stderr, "gendocs:", err)
			os.Exit(1)
		}
	}
}
