package ui

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/render"
)

// saveBlocks saves the images, audio and blobs of the result on screen to
// files, as `mcpctl call --save-dir` saves them (the same rendering code
// writes them), and says where in the status line.
func (m *Model) saveBlocks() {
	var blocks []client.Content
	switch t := &m.text; {
	case t.result != nil && t.result.result != nil:
		blocks = t.result.result.Content
	case t.content != nil:
		blocks = t.content.blocks
		for _, msg := range t.content.messages {
			blocks = append(blocks, msg.Content)
		}
	}
	n := 0
	for _, b := range blocks {
		if b.Type == "image" || b.Type == "audio" || (b.Resource != nil && b.Resource.Blob != nil) {
			n++
		}
	}
	switch {
	case n == 0:
		m.status = "nothing to save: no image, audio or blob here"
		return
	case m.opts.SaveDir == "" && m.opts.CacheDir == "":
		m.status = "nothing saved: start the ui with --save-dir DIR"
		return
	}
	p := &render.Printer{Out: io.Discard, ErrOut: io.Discard}
	files, err := p.Content(blocks, render.ContentOptions{SaveDir: m.opts.SaveDir, CacheDir: m.opts.CacheDir})
	switch {
	case err != nil && len(files) == 0:
		m.status = "not saved: " + oneLine(err.Error())
	case len(files) == 1:
		m.status = "saved " + oneLine(files[0])
	default:
		m.status = fmt.Sprintf("saved %d files: %s", len(files), oneLine(strings.Join(files, ", ")))
	}
}
