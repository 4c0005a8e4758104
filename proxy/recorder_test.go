package proxy

import "sync"

// recorder is an Observer that keeps what it saw.
type recorder struct {
	mu     sync.Mutex
	frames []Frame
	events []Event
	block  chan struct{} // when set, Frame waits on it
}

func (r *recorder) Frame(f Frame) {
	if r.block != nil {
		<-r.block
	}
	r.mu.Lock()
	r.frames = append(r.frames, f)
	r.mu.Unlock()
}

func (r *recorder) Event(e Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

func (r *recorder) event(name string) *Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range r.events {
		if r.events[i].Name == name {
			return &r.events[i]
		}
	}
	return nil
}

// dropped is the number of frames the "dropped" events among events count.
func dropped(events []Event) int64 {
	var n int64
	for _, e := range events {
		if e.Name == "dropped" {
			n += e.Detail.(map[string]int64)["frames"]
		}
	}
	return n
}
