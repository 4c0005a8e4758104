package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"
)

// Stdio is the stdio shim: a host starts `mcpctl proxy -- SERVER ARGS...`
// in place of the server, and the shim starts the server as the host would
// have, relays the host's stdin to the server's and the server's stdout to
// the host's, byte for byte, and tees each line to its [Tap].
//
// The server gets the environment and working directory the host gave the
// proxy (a host's config sets a server's variables there) and the proxy's
// stderr. It runs in its own process group: the signals the proxy gets
// (the host's SIGTERM, a terminal's Ctrl-C) are passed on to that group,
// and whatever is left of it once the server exits is stopped, so no
// process outlives the proxy; on Linux the server also gets SIGTERM should
// the proxy itself be killed.
type Stdio struct {
	// Args is the server's command line; Args[0] is looked up in PATH.
	Args []string
	// Env is the server's environment, nil for the proxy's own.
	Env []string
	// Dir is the server's working directory, "" for the proxy's own.
	Dir string
	// In is what the host writes (the proxy's stdin); Out is what it reads
	// (the proxy's stdout).
	In  io.Reader
	Out io.Writer
	// Stderr receives the server's stderr. An *os.File is handed to the
	// server as its own, so those bytes never pass through the proxy.
	Stderr io.Writer
	// Tap receives the frames and events.
	Tap *Tap
	// Signals are the signals to pass on to the server's process group.
	Signals <-chan os.Signal
	// Govern, when set, governs the host's requests (see [Governor]);
	// nil relays every byte as it comes.
	Govern *Governor
	// Grace is how long the server has to exit on its own once the host is
	// gone (its stdin closed) or once it exited and left processes holding
	// its stdout, before SIGTERM; zero means 2 s.
	Grace time.Duration

	// plainPipes makes the shim relay through the ends' own os.File, never
	// pipeio, so a benchmark can compare the two.
	plainPipes bool
}

// StartError is the shim's failure to start the server.
type StartError struct {
	Command string
	Err     error
}

func (e *StartError) Error() string {
	return fmt.Sprintf("starting the server %q: %v", e.Command, e.Err)
}

func (e *StartError) Unwrap() error { return e.Err }

// Run starts the server and relays until the server exits and its output
// has been relayed. It returns the server's exit status as a process's
// exit code (128 + N for a server killed by signal N), or a [*StartError].
//
// When the host closes its end (EOF on In), the server's stdin is closed,
// as it would be without the proxy, and the shim waits for the server to
// exit. When the host stops reading (Out fails), the server's stdin is
// closed and it gets Grace to exit before SIGTERM. The goroutine reading
// In may still be blocked in a read when Run returns; a proxy process
// exits then, which ends it.
func (s *Stdio) Run() (int, error) {
	if len(s.Args) == 0 {
		return 0, &StartError{Err: errors.New("no command given")}
	}
	grace := s.Grace
	if grace <= 0 {
		grace = 2 * time.Second
	}
	command := s.Args[0]
	cmd := exec.Command(command, s.Args[1:]...)
	cmd.Env, cmd.Dir = s.Env, s.Dir
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		return 0, &StartError{Command: command, Err: err}
	}
	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		stdinR.Close()
		stdinW.Close()
		return 0, &StartError{Command: command, Err: err}
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdinR, stdoutW, s.Stderr
	setProcAttrs(cmd)
	err = cmd.Start()
	stdinR.Close()
	stdoutW.Close()
	if err != nil {
		stdinW.Close()
		stdoutR.Close()
		return 0, &StartError{Command: command, Err: err}
	}
	defer stdoutR.Close()
	pid := cmd.Process.Pid
	s.Tap.Note("start", map[string]any{"command": s.Args, "pid": pid})

	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		close(exited)
	}()
	ends := s.ends(stdinW, stdoutR)
	defer ends.release()
	hostDone := make(chan error, 1)
	outDone := make(chan error, 1)
	if s.Govern == nil {
		go func() {
			err := relay(ends.toServer, ends.in, HostToServer, s.Tap)
			stdinW.Close()
			hostDone <- err
		}()
		go func() { outDone <- relay(ends.out, ends.fromServer, ServerToHost, s.Tap) }()
	} else {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel() // held calls end with the session
		server, host := &lineWriter{w: ends.toServer}, &lineWriter{w: ends.out}
		conn := s.Govern.Conn(stdioOutbox{server: server, host: host})
		conn.inline, conn.lines = true, true
		go func() {
			err := relayHostGoverned(ctx, conn, server, ends.in, s.Tap)
			stdinW.Close()
			hostDone <- err
		}()
		go func() { outDone <- relayServerGoverned(conn, host, ends.fromServer, s.Tap) }()
	}

	var (
		outEnded  bool
		hasExited bool
		deadline  <-chan time.Time // SIGTERM for the group when it fires
		killAt    <-chan time.Time // SIGKILL for the group when it fires
	)
	for !outEnded || !hasExited {
		select {
		case sig := <-s.Signals:
			s.Tap.Note("signal", map[string]any{"signal": sig.String()})
			signalGroup(cmd.Process, sig)
		case err := <-hostDone:
			hostDone = nil
			var werr *WriteError
			switch {
			case err == nil:
				s.Tap.Note("host-closed", nil)
			case errors.As(err, &werr):
				// The server closed its stdin or exited; its side ends
				// the session.
			default:
				s.Tap.Note("error", map[string]any{"op": "reading the host", "error": err.Error()})
			}
		case err := <-outDone:
			outEnded = true
			var werr *WriteError
			if errors.As(err, &werr) {
				// The host stopped reading: the server loses its host as
				// it would without the proxy, by its stdin closing; it
				// gets the grace period to notice.
				s.Tap.Note("host-gone", map[string]any{"error": werr.Err.Error()})
				stdinW.Close()
				if !hasExited && deadline == nil {
					deadline = time.After(grace)
				}
				go io.Copy(io.Discard, stdoutR)
			} else if err != nil {
				s.Tap.Note("error", map[string]any{"op": "reading the server", "error": err.Error()})
			}
		case <-exited:
			exited, hasExited = nil, true
			s.Tap.Note("server-exit", exitDetail(cmd.ProcessState))
			if !outEnded && deadline == nil {
				// Something the server started still holds its stdout.
				deadline = time.After(grace)
			}
		case <-deadline:
			deadline = nil
			terminateGroup(cmd.Process)
			killAt = time.After(grace)
		case <-killAt:
			killAt = nil
			killGroup(cmd.Process)
			if !outEnded {
				stdoutR.Close()
			}
		}
	}
	stopGroup(cmd.Process, grace)
	return exitCode(cmd.ProcessState), nil
}

// stopGroup stops what is left of the server's process group once the
// server exited: SIGTERM, then SIGKILL after grace.
func stopGroup(p *os.Process, grace time.Duration) {
	if !groupAlive(p) {
		return
	}
	terminateGroup(p)
	end := time.Now().Add(grace)
	for time.Now().Before(end) {
		if !groupAlive(p) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	killGroup(p)
}

// exitDetail describes how the server exited, for the session log.
func exitDetail(ps *os.ProcessState) map[string]any {
	d := map[string]any{"code": exitCode(ps)}
	if sig := exitSignal(ps); sig != "" {
		d["signal"] = sig
	}
	return d
}
