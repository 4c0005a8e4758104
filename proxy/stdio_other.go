//go:build !unix

package proxy

import (
	"os"
	"os/exec"
)

// Without process groups, signals and stops reach the server alone.
func setProcAttrs(*exec.Cmd)                   {}
func signalGroup(p *os.Process, sig os.Signal) { p.Signal(sig) }
func terminateGroup(p *os.Process)             { p.Kill() }
func killGroup(p *os.Process)                  { p.Kill() }
func groupAlive(*os.Process) bool              { return false }
func exitCode(ps *os.ProcessState) int         { return ps.ExitCode() }
func exitSignal(*os.ProcessState) string       { return "" }
