//go:build !linux

// Package pipeio reads and writes pipes with raw system calls on the
// runtime poller's readiness; that is Linux's, and elsewhere [New]
// declines every file.
package pipeio

import "os"

// File is Linux's; elsewhere the pipe's own os.File is used.
type File struct{ *os.File }

// New returns nil: the caller uses f itself.
func New(*os.File) *File { return nil }

// Poll returns nil: the caller reads and writes f itself.
func Poll(*os.File, ...*os.File) (*os.File, func()) { return nil, nil }

// Stdin returns os.Stdin.
func Stdin() (*os.File, func()) { return os.Stdin, func() {} }
