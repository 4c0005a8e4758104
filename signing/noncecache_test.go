package signing

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

func TestNonceCache(t *testing.T) {
	t0 := testNow
	type use struct {
		nonce string
		until time.Time
		now   time.Time
		want  error
	}
	tests := []struct {
		name     string
		capacity int
		uses     []use
		wantLen  int
	}{
		{
			name: "replay refused while live",
			uses: []use{
				{"a", t0.Add(time.Minute), t0, nil},
				{"a", t0.Add(time.Minute), t0.Add(30 * time.Second), ErrNonceReplayed},
				{"b", t0.Add(time.Minute), t0.Add(30 * time.Second), nil},
			},
			wantLen: 2,
		},
		{
			name: "expired nonces are forgotten",
			uses: []use{
				{"a", t0.Add(time.Minute), t0, nil},
				{"b", t0.Add(3 * time.Minute), t0, nil},
				{"c", t0.Add(3 * time.Minute), t0.Add(2 * time.Minute), nil},
				// a expired at t0+1m, so it is gone; its timestamp check would
				// refuse it anyway.
				{"a", t0.Add(4 * time.Minute), t0.Add(2 * time.Minute), nil},
			},
			wantLen: 3,
		},
		{
			name:     "full cache refuses rather than forgets",
			capacity: 2,
			uses: []use{
				{"a", t0.Add(time.Minute), t0, nil},
				{"b", t0.Add(2 * time.Minute), t0, nil},
				{"c", t0.Add(time.Minute), t0, ErrNonceCacheFull},
				{"c", t0.Add(2 * time.Minute), t0.Add(time.Minute), nil}, // a expired, room again
				{"b", t0.Add(2 * time.Minute), t0.Add(time.Minute), ErrNonceReplayed},
			},
			wantLen: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewNonceCache(tt.capacity)
			for i, u := range tt.uses {
				if err := c.Use(u.nonce, u.until, u.now); !errors.Is(err, u.want) {
					t.Errorf("use %d (%s): err = %v, want %v", i, u.nonce, err, u.want)
				}
			}
			if got := c.Len(); got != tt.wantLen {
				t.Errorf("Len = %d, want %d", got, tt.wantLen)
			}
		})
	}
}

func TestNonceCacheConcurrent(t *testing.T) {
	c := NewNonceCache(0)
	until := testNow.Add(time.Minute)
	const workers, perWorker = 8, 200
	var wg sync.WaitGroup
	var mu sync.Mutex
	accepted := 0
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWorker {
				// Every nonce is offered by two workers; exactly one may win.
				n := fmt.Sprintf("n%d", (w/2)*perWorker+i)
				if err := c.Use(n, until, testNow); err == nil {
					mu.Lock()
					accepted++
					mu.Unlock()
				} else if !errors.Is(err, ErrNonceReplayed) {
					t.Errorf("Use(%s): %v", n, err)
				}
			}
		}()
	}
	wg.Wait()
	if want := workers / 2 * perWorker; accepted != want || c.Len() != want {
		t.Errorf("accepted %d, Len %d; want %d each", accepted, c.Len(), want)
	}
}
