package client

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// notes collects the notifications that reach OnNotification.
type notes chan Notification

func (n notes) next(t *testing.T) Notification {
	t.Helper()
	select {
	case got := <-n:
		return got
	case <-time.After(failAfter):
		t.Fatalf("no notification within %s", failAfter)
	}
	return Notification{}
}

func TestSubscribeLegacy(t *testing.T) {
	tests := []struct {
		name         string
		caps         string
		want, agreed SubscriptionFilter
		subscribed   []string // resources/subscribe sent, in order
	}{
		{
			name:       "everything offered",
			caps:       `{"tools":{"listChanged":true},"prompts":{"listChanged":true},"resources":{"listChanged":true,"subscribe":true}}`,
			want:       SubscriptionFilter{ToolsListChanged: true, PromptsListChanged: true, ResourcesListChanged: true, ResourceSubscriptions: []string{"a://1", "a://2"}},
			agreed:     SubscriptionFilter{ToolsListChanged: true, PromptsListChanged: true, ResourcesListChanged: true, ResourceSubscriptions: []string{"a://1", "a://2"}},
			subscribed: []string{"a://1", "a://2"},
		},
		{
			name:   "nothing offered: left out, nothing sent",
			caps:   `{"tools":{},"resources":{"listChanged":false}}`,
			want:   SubscriptionFilter{ToolsListChanged: true, ResourcesListChanged: true, ResourceSubscriptions: []string{"a://1"}},
			agreed: SubscriptionFilter{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, c := connectFake(t, false, map[string]handler{
				"initialize":            initializeWith(tt.caps),
				"resources/subscribe":   func(s *fakeServer, m message) { s.reply(m, `{}`) },
				"resources/unsubscribe": func(s *fakeServer, m message) { s.reply(m, `{}`) },
			}, Options{})
			sub, err := c.Subscribe(context.Background(), tt.want)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.agreed, sub.Filter()); diff != "" {
				t.Errorf("filter (-want +got):\n%s", diff)
			}
			if sub.ID() != "" {
				t.Errorf("ID %q in the legacy era", sub.ID())
			}
			if err := sub.Close(); err != nil {
				t.Fatal(err)
			}
			if err := sub.Err(); err != nil {
				t.Errorf("Err after Close: %v", err)
			}
			c.Close()
			var subs, unsubs []string
			for _, m := range s.received(t) {
				switch m.Method {
				case "resources/subscribe":
					subs = append(subs, compact(t, m.Params))
				case "resources/unsubscribe":
					unsubs = append(unsubs, compact(t, m.Params))
				}
			}
			var want []string
			for _, u := range tt.subscribed {
				want = append(want, `{"uri":"`+u+`"}`)
			}
			if diff := cmp.Diff(want, subs); diff != "" {
				t.Errorf("resources/subscribe (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want, unsubs); diff != "" {
				t.Errorf("resources/unsubscribe on Close (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSubscribeLegacyRefused: a resources/subscribe answered with an error
// fails Subscribe, naming the resource, and undoes the ones before it.
func TestSubscribeLegacyRefused(t *testing.T) {
	s, c := connectFake(t, false, map[string]handler{
		"initialize": initializeWith(`{"resources":{"subscribe":true}}`),
		"resources/subscribe": func(s *fakeServer, m message) {
			if strings.Contains(string(m.Params), "bad") {
				s.replyError(m, `{"code":-32002,"message":"no such resource"}`)
				return
			}
			s.reply(m, `{}`)
		},
		"resources/unsubscribe": func(s *fakeServer, m message) { s.reply(m, `{}`) },
	}, Options{})
	_, err := c.Subscribe(context.Background(), SubscriptionFilter{ResourceSubscriptions: []string{"a://ok", "a://bad"}})
	var rpc *RPCError
	if err == nil || !errors.As(err, &rpc) || !strings.HasPrefix(err.Error(), "subscribing to a://bad: ") {
		t.Fatalf("error %v", err)
	}
	m := s.waitFor(t, "resources/unsubscribe", isMethod("resources/unsubscribe"))
	if got := compact(t, m.Params); got != `{"uri":"a://ok"}` {
		t.Errorf("unsubscribed %s", got)
	}
}

// listenServer is a fake modern server whose subscriptions/listen handler
// acknowledges with agreed (a JSON filter), or does what onListen says.
func listenServer(t *testing.T, onListen handler, n notes) (*fakeServer, *Client) {
	t.Helper()
	return connectFake(t, true, map[string]handler{
		"server/discover":      discoverWith(`{"tools":{"listChanged":true},"resources":{"subscribe":true}}`),
		"subscriptions/listen": onListen,
	}, Options{OnNotification: func(x Notification) { n <- x }})
}

func ack(agreed string) handler {
	return func(s *fakeServer, m message) {
		s.write(`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":` + string(m.ID) + `},"notifications":` + agreed + `}}`)
	}
}

// TestSubscribeModern: one listen request with the filter and the era's
// _meta; the acknowledged subset is the filter; notifications of the
// subscription carry its id; Close sends notifications/cancelled naming
// it, and later notifications of it are dropped.
func TestSubscribeModern(t *testing.T) {
	n := make(notes, 16)
	s, c := listenServer(t, ack(`{"toolsListChanged":true,"resourceSubscriptions":["a://1"]}`), n)
	sub, err := c.Subscribe(context.Background(), SubscriptionFilter{ToolsListChanged: true, PromptsListChanged: true, ResourceSubscriptions: []string{"a://1"}})
	if err != nil {
		t.Fatal(err)
	}
	listen := s.waitFor(t, "subscriptions/listen", isMethod("subscriptions/listen"))
	p := compact(t, listen.Params)
	if !strings.Contains(p, `"notifications":{"toolsListChanged":true,"promptsListChanged":true,"resourceSubscriptions":["a://1"]}`) ||
		!strings.Contains(p, `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`) {
		t.Errorf("listen params %s", p)
	}
	if sub.ID() != string(listen.ID) {
		t.Errorf("ID %q, want %s", sub.ID(), listen.ID)
	}
	want := SubscriptionFilter{ToolsListChanged: true, ResourceSubscriptions: []string{"a://1"}}
	if diff := cmp.Diff(want, sub.Filter()); diff != "" {
		t.Errorf("filter (-want +got):\n%s", diff)
	}

	id := string(listen.ID)
	s.write(`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":` + id + `},"uri":"a://1"}}`)
	got := n.next(t)
	if got.ResourceUpdated == nil || got.ResourceUpdated.URI != "a://1" || got.SubscriptionID != id {
		t.Errorf("notification %+v", got)
	}
	select {
	case <-sub.Done():
		t.Fatal("the subscription ended by itself")
	default:
	}

	if err := sub.Close(); err != nil {
		t.Fatal(err)
	}
	m := s.waitFor(t, "notifications/cancelled", isMethod("notifications/cancelled"))
	if got := compact(t, m.Params); !strings.Contains(got, `"requestId":`+id+`}`) {
		t.Errorf("cancelled %s", got)
	}
	if err := sub.Err(); err != nil {
		t.Errorf("Err after Close: %v", err)
	}
	// Late: dropped. The next one, of no subscription, marks the end.
	s.write(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":` + id + `}}}`)
	s.write(`{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}`)
	if got := n.next(t); got.ListChanged != "prompts" {
		t.Errorf("after Close got %s %s, want only the prompts change", got.Method, got.Params)
	}
	// A late answer to the listen is no stray.
	s.write(`{"jsonrpc":"2.0","id":` + id + `,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":` + id + `}}}`)
}

// TestSubscribeModernEnds: the ways a live subscription ends without Close.
func TestSubscribeModernEnds(t *testing.T) {
	tests := []struct {
		name  string
		end   func(s *fakeServer, id string)
		check func(t *testing.T, err error)
	}{
		{"graceful result", func(s *fakeServer, id string) {
			s.write(`{"jsonrpc":"2.0","id":` + id + `,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":` + id + `}}}`)
		}, func(t *testing.T, err error) {
			var e *SubscriptionEndedError
			if !errors.As(err, &e) || !e.ByServer || err.Error() != "the server ended the subscription" {
				t.Errorf("Err %v", err)
			}
		}},
		{"notifications/cancelled", func(s *fakeServer, id string) {
			s.write(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `,"reason":"shutting down"}}`)
		}, func(t *testing.T, err error) {
			if err == nil || err.Error() != "the server ended the subscription (shutting down)" {
				t.Errorf("Err %v", err)
			}
		}},
		{"error answer", func(s *fakeServer, id string) {
			s.write(`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32603,"message":"boom"}}`)
		}, func(t *testing.T, err error) {
			var rpc *RPCError
			if !errors.As(err, &rpc) || rpc.Code != -32603 {
				t.Errorf("Err %v", err)
			}
		}},
		{"connection lost", func(s *fakeServer, id string) {
			s.conn.Close()
		}, func(t *testing.T, err error) {
			if err == nil || !strings.Contains(err.Error(), "connection lost") {
				t.Errorf("Err %v", err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := make(notes, 16)
			s, c := listenServer(t, ack(`{"toolsListChanged":true}`), n)
			sub, err := c.Subscribe(context.Background(), SubscriptionFilter{ToolsListChanged: true})
			if err != nil {
				t.Fatal(err)
			}
			tt.end(s, sub.ID())
			select {
			case <-sub.Done():
			case <-time.After(failAfter):
				t.Fatal("the subscription did not end")
			}
			tt.check(t, sub.Err())
			if err := sub.Close(); err != nil {
				t.Errorf("Close after the end: %v", err)
			}
			if tt.name == "notifications/cancelled" {
				select {
				case x := <-n:
					t.Errorf("the server's notifications/cancelled reached OnNotification: %+v", x)
				default:
				}
			}
		})
	}
}

// TestSubscribeModernStartFails: an error answer before the
// acknowledgment fails Subscribe with that error; no acknowledgment
// within the timeout is a TimeoutError.
func TestSubscribeModernStartFails(t *testing.T) {
	n := make(notes, 16)
	_, c := listenServer(t, func(s *fakeServer, m message) {
		s.replyError(m, `{"code":-32601,"message":"method not found"}`)
	}, n)
	_, err := c.Subscribe(context.Background(), SubscriptionFilter{ToolsListChanged: true})
	var rpc *RPCError
	if !errors.As(err, &rpc) || !strings.HasPrefix(err.Error(), "subscriptions/listen: ") {
		t.Errorf("error %v", err)
	}

	s2, conn := startFake(t, map[string]handler{
		"server/discover": discoverWith(`{"tools":{"listChanged":true}}`),
	})
	c2, err := Connect(context.Background(), fixed(conn), Options{Timeout: 300 * time.Millisecond, ProtocolVersion: ModernProtocolVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	_, err = c2.Subscribe(context.Background(), SubscriptionFilter{ToolsListChanged: true})
	var te *TimeoutError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "no notifications/subscriptions/acknowledged arrived") {
		t.Errorf("error %v", err)
	}
	s2.waitFor(t, "notifications/cancelled", isMethod("notifications/cancelled"))
}
