package proxy

import (
	"io"
	"os"

	"github.com/mcpctl/mcpctl/internal/pipeio"
)

// shimEnds are the four ends the shim relays between: the host's (what it
// inherited as stdin and stdout) and the server's (the pipes it made).
type shimEnds struct {
	in         io.Reader // the host's requests
	out        io.Writer // to the host
	toServer   io.Writer // the server's stdin
	fromServer io.Reader // the server's stdout
	release    func()    // gives the host's ends back as they came
}

// ends returns the reader and writer types the relay uses for each end:
// a [pipeio.File] for each end that is a pipe or a socket, so that a
// round trip costs no pass through the scheduler's blocking-syscall path,
// and the end itself otherwise (a terminal, a file, a test's buffer, a
// socket that is also stderr, or any end when plainPipes is set). release
// must be called once the relays are done with the host's ends.
func (s *Stdio) ends(stdinW, stdoutR *os.File) shimEnds {
	e := shimEnds{in: s.In, out: s.Out, toServer: stdinW, fromServer: stdoutR, release: func() {}}
	if s.plainPipes {
		return e
	}
	if p := pipeio.New(stdinW); p != nil {
		e.toServer = p
	}
	if p := pipeio.New(stdoutR); p != nil {
		e.fromServer = p
	}
	var releases []func()
	stderr, _ := s.Stderr.(*os.File)
	if f, ok := s.In.(*os.File); ok {
		if p, release := hostPipe(f, stderr); p != nil {
			e.in = p
			releases = append(releases, release)
		}
	}
	if f, ok := s.Out.(*os.File); ok {
		if p, release := hostPipe(f, stderr); p != nil {
			e.out = p
			releases = append(releases, release)
		}
	}
	e.release = func() {
		for _, r := range releases {
			r()
		}
	}
	return e
}
