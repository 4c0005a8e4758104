package client

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// metaLogLevel is the _meta key by which a modern request asks for log
// messages (2026-07-28/server/utilities/logging, "Per-request log level").
const metaLogLevel = "io.modelcontextprotocol/logLevel"

// LogLevels returns the severities of MCP logging, the syslog levels of
// RFC 5424, least severe first; a fresh copy on each call.
func LogLevels() []string {
	return []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}
}

// CheckLogLevel reports whether level is one of [LogLevels]; the error
// lists them.
func CheckLogLevel(level string) error {
	if slices.Contains(LogLevels(), level) {
		return nil
	}
	return fmt.Errorf("unknown log level %q: want one of %s", level, strings.Join(LogLevels(), ", "))
}

// CapabilityError reports that the server did not declare the capability
// a feature needs, so the client did not ask for it.
type CapabilityError struct {
	// Capability is what the server would have to declare:
	// "logging", "resources.subscribe".
	Capability string
	// Feature is what the user asked for: "log messages".
	Feature string
}

// Error reads like `the server does not declare the logging capability,
// so it sends no log messages`.
func (e *CapabilityError) Error() string {
	return fmt.Sprintf("the server does not declare the %s capability, so it offers no %s", e.Capability, e.Feature)
}

// SetLogLevel asks the server for its log messages at level and above
// (notifications/message, which reach [Options.OnNotification]).
//
// In the legacy era it sends logging/setLevel, which sets the level of the
// session. The modern era has no such method and no session: from now on
// every request carries the level in params._meta
// ("io.modelcontextprotocol/logLevel"), and the server sends the log
// messages of each request on that request's own response stream — a
// modern server logs only about the requests this client makes. Both need
// the server's logging capability; without it the result is a
// [*CapabilityError] and nothing is sent.
func (c *Client) SetLogLevel(ctx context.Context, level string) error {
	if err := CheckLogLevel(level); err != nil {
		return err
	}
	if err := c.Discover(ctx); err != nil {
		return err
	}
	if !c.HasCapability("logging") {
		return &CapabilityError{Capability: "logging", Feature: "log messages"}
	}
	if !c.isModern() {
		if _, err := c.Call(ctx, "logging/setLevel", map[string]string{"level": level}); err != nil {
			return err
		}
	}
	c.watch.mu.Lock()
	c.watch.logLevel = level
	c.watch.mu.Unlock()
	return nil
}

// restoreLogLevel sends logging/setLevel again after a legacy session was
// re-initialized: the new session starts at the server's default level.
// A failure is reported as a protocol warning; the request that met the
// expired session goes on.
func (c *Client) restoreLogLevel(ctx context.Context) {
	level := c.LogLevel()
	if level == "" || c.isModern() {
		return
	}
	params, err := encodeParams("logging/setLevel", map[string]string{"level": level})
	if err == nil {
		_, _, err = c.roundTrip(ctx, "logging/setLevel", oneParams(params), true, requestOptions{})
	}
	if err != nil {
		c.warn(fmt.Sprintf("the log level %q could not be set again in the new session: %v", level, err))
	}
}

// LogLevel is the level [Client.SetLogLevel] set, "" before it.
func (c *Client) LogLevel() string {
	c.watch.mu.Lock()
	defer c.watch.mu.Unlock()
	return c.watch.logLevel
}
