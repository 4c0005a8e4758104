package client

import (
	"encoding/json"
	"strings"
)

// Notification is one notification from the server, with a typed view of
// the kinds mcpctl knows. Method and Params are always set (Params as the
// server sent it, nil when absent); at most one view is set, and none when
// the params do not decode (Err says why) or the method is not one of them.
type Notification struct {
	Method string
	Params json.RawMessage

	// Log is set for notifications/message.
	Log *LoggingMessage
	// Progress is set for notifications/progress.
	Progress *Progress
	// ListChanged names the list for notifications/<list>/list_changed:
	// "tools", "resources", "prompts".
	ListChanged string
	// ResourceUpdated is set for notifications/resources/updated.
	ResourceUpdated *ResourceUpdated

	// SubscriptionID is the id of the subscriptions/listen request the
	// notification belongs to (params._meta
	// "io.modelcontextprotocol/subscriptionId", as the key of a request
	// id), "" when it names none: every notification of the legacy era.
	SubscriptionID string

	// Err is why Params did not decode into the view of Method.
	Err error
}

// LoggingMessage is the params of notifications/message.
type LoggingMessage struct {
	// Level is one of the syslog levels: debug, info, notice, warning,
	// error, critical, alert, emergency.
	Level  string          `json:"level"`
	Logger string          `json:"logger,omitempty"`
	Data   json.RawMessage `json:"data"`
}

// Text is Data for display: a JSON string unquoted, anything else as the
// JSON the server sent.
func (m *LoggingMessage) Text() string {
	var s string
	if json.Unmarshal(m.Data, &s) != nil {
		return string(m.Data)
	}
	return s
}

// Progress is the params of notifications/progress.
type Progress struct {
	// Token is the progressToken of the request, a string or a number.
	Token    json.RawMessage `json:"progressToken"`
	Progress float64         `json:"progress"`
	Total    *float64        `json:"total,omitempty"`
	Message  string          `json:"message,omitempty"`
}

// ResourceUpdated is the params of notifications/resources/updated.
type ResourceUpdated struct {
	URI string `json:"uri"`
}

// decodeNotification builds the typed view of a notification.
func decodeNotification(method string, params json.RawMessage) Notification {
	n := Notification{Method: method, Params: params}
	var meta struct {
		Meta struct {
			SubscriptionID json.RawMessage `json:"io.modelcontextprotocol/subscriptionId"`
		} `json:"_meta"`
	}
	if json.Unmarshal(params, &meta) == nil && len(meta.Meta.SubscriptionID) > 0 {
		n.SubscriptionID = idKey(meta.Meta.SubscriptionID)
	}
	switch method {
	case "notifications/message":
		m := &LoggingMessage{}
		if n.Err = json.Unmarshal(params, m); n.Err == nil {
			n.Log = m
		}
	case "notifications/progress":
		p := &Progress{}
		if n.Err = json.Unmarshal(params, p); n.Err == nil {
			n.Progress = p
		}
	case "notifications/resources/updated":
		u := &ResourceUpdated{}
		if n.Err = json.Unmarshal(params, u); n.Err == nil {
			n.ResourceUpdated = u
		}
	default:
		if kind, ok := strings.CutPrefix(method, "notifications/"); ok {
			if kind, ok := strings.CutSuffix(kind, "/list_changed"); ok && kind != "" {
				n.ListChanged = kind
			}
		}
	}
	return n
}
