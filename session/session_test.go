package session

import (
	"errors"
	"testing"
)

func TestCloseHurried(t *testing.T) {
	t.Parallel()
	// Not hurried: Close's own result.
	if err := closeHurried(func() error { return nil }, func() { t.Error("killed") }, make(chan struct{})); err != nil {
		t.Errorf("unhurried: %v", err)
	}
	// Hurried while the shutdown waits: kill, and return at once.
	hurry := make(chan struct{})
	release := make(chan struct{})
	defer close(release)
	killed := make(chan struct{})
	go func() { close(hurry) }()
	err := closeHurried(func() error { <-release; return nil }, func() { close(killed) }, hurry)
	if !errors.Is(err, ErrHurried) {
		t.Errorf("hurried: %v", err)
	}
	<-killed
}
