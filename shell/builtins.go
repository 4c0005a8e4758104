package shell

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpctl/mcpctl/client"
)

// command is a command a line may start with: its name, a one-line usage,
// how it runs (nil for exit), and whether [Options.Run] runs it.
type command struct {
	name, usage string
	run         func(sh *shell, ctx context.Context, args []string) error
	cli         bool
}

// commands are the commands a line may start with: those Options.Run
// runs, then the shell's own.
func (sh *shell) commands() []command {
	var cmds []command
	for _, c := range sh.opts.Commands {
		name := c.Name
		cmds = append(cmds, command{name: name, usage: c.Usage, cli: true, run: func(sh *shell, ctx context.Context, args []string) error {
			return sh.opts.Run(ctx, append([]string{name}, args...), sh.out, sh.errOut)
		}})
	}
	return append(cmds,
		command{name: "subscribe", usage: "subscribe URI...", run: (*shell).subscribe},
		command{name: "unsubscribe", usage: "unsubscribe URI...", run: (*shell).unsubscribe},
		command{name: "wait", usage: "wait DURATION", run: (*shell).wait},
		command{name: "roots", usage: "roots [add|remove DIR...]", run: (*shell).roots},
		command{name: "help", usage: "help [COMMAND]", run: (*shell).help},
		command{name: "exit", usage: "exit"},
	)
}

func (sh *shell) lookup(name string) (command, bool) {
	if name == "quit" {
		name = "exit"
	}
	for _, c := range sh.commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// subscribe asks for the updates of resources.
func (sh *shell) subscribe(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("subscribe needs the URI of a resource, e.g. subscribe demo://readme")
	}
	var uris []string
	for _, uri := range args {
		if _, ok := sh.subs[uri]; !ok && !slices.Contains(uris, uri) {
			uris = append(uris, uri)
		}
	}
	if len(uris) == 0 {
		return nil
	}
	sub, err := sh.s.Subscribe(ctx, client.SubscriptionFilter{ResourceSubscriptions: uris})
	if err != nil {
		return fmt.Errorf("subscribing to %s on %s: %w", strings.Join(uris, ", "), sh.conn.Name, err)
	}
	got := sub.Filter().ResourceSubscriptions
	var refused []string
	for _, uri := range uris {
		if slices.Contains(got, uri) {
			sh.subs[uri] = sub
		} else {
			refused = append(refused, uri)
		}
	}
	if len(got) == 0 {
		_ = sub.Close()
	}
	if len(got) > 0 {
		fmt.Fprintf(sh.errOut, "subscribed to %s\n", strings.Join(got, ", "))
	}
	if len(refused) > 0 {
		return fmt.Errorf("%s does not offer updates of %s (it did not agree to the subscription)", sh.conn.Name, strings.Join(refused, ", "))
	}
	return nil
}

// unsubscribe ends the subscriptions of resources: a subscription made
// for several ends when none of them is wanted any more.
func (sh *shell) unsubscribe(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("unsubscribe needs the URI of a subscribed resource")
	}
	for _, uri := range args {
		sub, ok := sh.subs[uri]
		if !ok || uri == "" {
			return fmt.Errorf("not subscribed to %s", uri)
		}
		delete(sh.subs, uri)
		used := false
		for _, other := range sh.subs {
			used = used || other == sub
		}
		if !used {
			if err := sub.Close(); err != nil {
				return fmt.Errorf("unsubscribing from %s: %w", uri, err)
			}
		}
	}
	return nil
}

// wait lets notifications arrive for a while.
func (sh *shell) wait(ctx context.Context, args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("wait takes one duration, e.g. wait 2s")
	}
	d, err := time.ParseDuration(args[0])
	if err != nil || d < 0 {
		return fmt.Errorf("wait: invalid duration %s: want e.g. 500ms, 2s or 1m", Excerpt(args[0]))
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-sh.s.Done():
		return nil // the loop reports the end
	}
}

// roots lists the roots the session offers the server, or changes them
// and tells the server (notifications/roots/list_changed in the legacy
// era; a modern server asks again when it needs them). The session must
// offer roots, which declares the capability.
func (sh *shell) roots(ctx context.Context, args []string) error {
	r := sh.conn.Roots
	if r == nil {
		return fmt.Errorf("this session offers no roots: start the shell with --root DIR (repeatable) to declare them")
	}
	if len(args) == 0 {
		for _, root := range r.List() {
			fmt.Fprintf(sh.out, "%s\t%s\n", root.URI, root.Name)
		}
		return nil
	}
	verb, dirs := args[0], args[1:]
	if (verb != "add" && verb != "remove") || len(dirs) == 0 {
		return fmt.Errorf("usage: roots, roots add DIR..., or roots remove DIR...")
	}
	list := r.List()
	for _, dir := range dirs {
		root, err := client.RootFromDir(dir)
		if err != nil {
			if verb == "add" {
				return fmt.Errorf("roots add: %w", err)
			}
			// A directory removed from disk can still be removed here.
			abs, _ := filepath.Abs(dir)
			root = client.Root{URI: client.FileURI(abs)}
		}
		i := slices.IndexFunc(list, func(x client.Root) bool { return x.URI == root.URI })
		switch {
		case verb == "add" && i < 0:
			list = append(list, root)
		case verb == "remove" && i >= 0:
			list = slices.Delete(list, i, i+1)
		case verb == "remove":
			return fmt.Errorf("roots remove: %s is not one of the roots", root.URI)
		}
	}
	r.Set(list)
	if err := sh.s.NotifyRootsChanged(ctx); err != nil {
		return fmt.Errorf("telling %s the roots changed: %w", sh.conn.Name, err)
	}
	return nil
}

// help lists the commands, or shows one's help.
func (sh *shell) help(ctx context.Context, args []string) error {
	if len(args) > 0 {
		c, ok := sh.lookup(args[0])
		if !ok {
			return fmt.Errorf("unknown command %s: type help for the commands", Excerpt(args[0]))
		}
		if c.cli {
			return c.run(sh, ctx, []string{"--help"})
		}
		fmt.Fprintln(sh.out, c.usage)
		return nil
	}
	fmt.Fprintln(sh.out, "Commands (arguments and flags as in mcpctl COMMAND; help COMMAND for more):")
	for _, c := range sh.commands() {
		fmt.Fprintln(sh.out, "  "+c.usage)
	}
	return nil
}
