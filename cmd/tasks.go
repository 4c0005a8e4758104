package cmd

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/render"
	"github.com/mcpctl/mcpctl/session"
)

// TasksOptions are the options of `mcpctl tasks list|get|cancel|result`.
type TasksOptions struct {
	Factory *Factory
	Server  ServerOptions
	Output  OutputOptions
	// TaskID is the argument of get, cancel and result.
	TaskID  string
	SaveDir string
}

// NewCmdTasks builds `mcpctl tasks` and its subcommands. runF replaces the
// run functions in tests; it receives the subcommand's name.
func NewCmdTasks(f *Factory, runF func(string, *TasksOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tasks <command>",
		Short: "List, inspect, cancel and fetch the results of a server's tasks",
		Long: `Tasks are tool calls a server runs in the background (MCP 2025-11-25
basic/utilities/tasks, and the 2026-07-28 tasks extension). mcpctl call
runs a tool as a task by itself when the tool requires it; these commands
reach tasks by id, which is useful with a server that keeps them between
connections (an HTTP server: a stdio server's tasks end with the process).

tasks list (2025-11-25 only: the extension has no list) shows every task
the server lists; tasks get shows one; tasks cancel cancels one; tasks
result prints the result of one that has ended, as mcpctl call prints a
result (2025-11-25: tasks/result waits for the task to end).`,
		Example: `  mcpctl tasks list --url http://127.0.0.1:3001/mcp
  mcpctl tasks get 786512e2-9e0d-44bd-8f29-789f320fe840 --url http://127.0.0.1:3001/mcp
  mcpctl tasks cancel 786512e2-9e0d-44bd-8f29-789f320fe840 -s myserver
  mcpctl tasks result 786512e2-9e0d-44bd-8f29-789f320fe840 -s myserver -o json
  mcpctl tasks list -- npx -y @modelcontextprotocol/server-everything`,
	}
	cmd.AddCommand(
		newCmdTasksSub(f, runF, "list", "List the server's tasks (tasks/list)", 0),
		newCmdTasksSub(f, runF, "get", "Show a task's status (tasks/get)", 1),
		newCmdTasksSub(f, runF, "cancel", "Cancel a task (tasks/cancel)", 1),
		newCmdTasksSub(f, runF, "result", "Print the result of a task that has ended", 1),
	)
	return cmd
}

func newCmdTasksSub(f *Factory, runF func(string, *TasksOptions) error, name, short string, nargs int) *cobra.Command {
	opts := &TasksOptions{Factory: f}
	use := name + " [flags] [-- server command...]"
	example := "  mcpctl tasks " + name + " --url http://127.0.0.1:3001/mcp"
	if nargs == 1 {
		use = name + " <task-id> [flags] [-- server command...]"
		example = "  mcpctl tasks " + name + " 786512e2-9e0d-44bd-8f29-789f320fe840 --url http://127.0.0.1:3001/mcp"
	}
	cmd := &cobra.Command{
		Use:     use,
		Short:   short,
		Example: example,
		RunE: func(cmd *cobra.Command, args []string) error {
			args = setServerArgs(cmd, args, &opts.Server)
			if len(args) != nargs {
				if nargs == 0 {
					return flagErrorf("tasks %s takes no arguments, e.g. %s", name, f.commandHint("tasks "+name, "--url URL"))
				}
				return flagErrorf("tasks %s takes exactly one task id, e.g. %s", name, f.commandHint("tasks "+name+" TASK-ID", "--url URL"))
			}
			if nargs == 1 {
				opts.TaskID = args[0]
			}
			if err := opts.Output.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(name, opts)
			}
			return tasksRun(cmd.Context(), name, opts)
		},
	}
	addServerFlags(cmd, &opts.Server)
	addOutputFlags(cmd, &opts.Output)
	if name == "result" {
		cmd.Flags().StringVar(&opts.SaveDir, "save-dir", "", "Folder for images, audio and blobs; files there are never replaced (default: on a terminal, a cache folder kept to the newest 100 files; piped, none)")
	}
	return cmd
}

func tasksRun(ctx context.Context, name string, opts *TasksOptions) error {
	f := opts.Factory
	s, err := f.Connect(ctx, &opts.Server)
	if err != nil {
		return err
	}
	defer s.Close()
	p := f.printer()
	switch name {
	case "list":
		if !s.TaskCapabilities().List && s.Era() == client.EraLegacy {
			f.printer().Warning(fmt.Sprintf("%s does not declare tasks.list; asking anyway", s.Name()))
		}
		tasks, err := s.ListTasks(ctx)
		if err != nil {
			return fmt.Errorf("listing the tasks of %s: %w", s.Name(), err)
		}
		if opts.Output.structured() {
			return opts.Output.write(p, map[string]any{"tasks": tasks})
		}
		rows := make([][]string, len(tasks))
		for i, t := range tasks {
			rows[i] = []string{p.Untrusted(t.TaskID), p.Untrusted(t.Status), p.Untrusted(t.StatusMessage), p.Untrusted(t.CreatedAt)}
		}
		return p.Table([]string{"ID", "STATUS", "MESSAGE", "CREATED"}, rows, "No tasks.")
	case "get", "cancel":
		var t *client.Task
		if name == "get" {
			t, err = s.GetTask(ctx, opts.TaskID)
		} else {
			t, err = s.CancelTask(ctx, opts.TaskID)
		}
		if err != nil {
			// Invalid params also refuses to cancel a task that has
			// ended: tasks/get tells.
			if unknownTask(err) && (name == "get" || unknownTask(getErr(ctx, s, opts.TaskID))) {
				return f.noTask(opts.TaskID, s.Name(), err)
			}
			return fmt.Errorf("tasks %s %q on %s: %w", name, opts.TaskID, s.Name(), err)
		}
		if t == nil { // a modern cancel: an acknowledgement
			if opts.Output.structured() {
				return opts.Output.write(p, map[string]any{})
			}
			fmt.Fprintf(f.IOStreams.ErrOut, "cancellation of task %q acknowledged\n", opts.TaskID)
			return nil
		}
		if opts.Output.structured() {
			return opts.Output.write(p, t)
		}
		return p.Fields(taskFields(p, t))
	case "result":
		res, err := s.TaskResult(ctx, opts.TaskID)
		if err != nil {
			if unknownTask(err) {
				// A legacy tasks/result answers a failed task with the
				// error of its call, which may be Invalid params too:
				// tasks/get tells.
				if unknownTask(getErr(ctx, s, opts.TaskID)) {
					return f.noTask(opts.TaskID, s.Name(), err)
				}
			}
			return fmt.Errorf("the result of task %q on %s: %w", opts.TaskID, s.Name(), err)
		}
		if opts.Output.structured() {
			if err := opts.Output.write(p, res.Raw); err != nil {
				return err
			}
		} else if err := f.printToolResult(p, res, opts.SaveDir, opts.Server.Verbose); err != nil {
			return err
		}
		if res.IsError {
			return &ExitCodeError{Code: ExitToolError, Msg: fmt.Sprintf("task %q reported an error (isError: true)", opts.TaskID)}
		}
		return nil
	}
	return flagErrorf("unknown tasks command %q", name)
}

// taskFields are the lines `tasks get` prints.
func taskFields(p *render.Printer, t *client.Task) [][2]string {
	fields := [][2]string{{"Task", p.Untrusted(t.TaskID)}, {"Status", p.Untrusted(t.Status)}}
	if t.StatusMessage != "" {
		fields = append(fields, [2]string{"Message", p.Untrusted(t.StatusMessage)})
	}
	if t.CreatedAt != "" {
		fields = append(fields, [2]string{"Created", p.Untrusted(t.CreatedAt)})
	}
	if t.LastUpdatedAt != "" {
		fields = append(fields, [2]string{"Updated", p.Untrusted(t.LastUpdatedAt)})
	}
	if t.TTLMs != nil {
		fields = append(fields, [2]string{"TTL", strconv.FormatInt(*t.TTLMs, 10) + " ms"})
	}
	if t.PollIntervalMs != nil {
		fields = append(fields, [2]string{"Poll interval", strconv.FormatInt(*t.PollIntervalMs, 10) + " ms"})
	}
	return fields
}

// callTask runs a tool call as a task, showing its status on stderr as it
// changes: on a terminal one live line (cleared by the caller when the
// call ends), else one line per change.
func callTask(ctx context.Context, f *Factory, s *session.Session, name string, args map[string]any, co client.CallOptions) (*client.CallToolResult, error) {
	data, err := client.MarshalArguments(args)
	if err != nil {
		return nil, fmt.Errorf("calling tool %q: %w", name, err)
	}
	return s.CallToolTask(ctx, name, data, co, client.TaskOptions{OnStatus: f.taskStatusPrinter()})
}

// taskStatusPrinter returns the OnStatus hook of `mcpctl call`'s tasks.
func (f *Factory) taskStatusPrinter() func(client.Task) {
	ios := f.IOStreams
	red := f.Redactor()
	tty := ios.IsStderrTTY()
	return func(t client.Task) {
		line := fmt.Sprintf("task %s: %s", t.TaskID, t.Status)
		if t.StatusMessage != "" {
			line += ": " + t.StatusMessage
		}
		line = red.String(line)
		if tty {
			// Server text on a terminal is shown, not obeyed; \r and
			// clear-to-end keep the status on one line.
			fmt.Fprintf(ios.ErrOut, "\r%s\x1b[K", render.Sanitize(line))
			return
		}
		fmt.Fprintln(ios.ErrOut, line)
	}
}

// unknownTask reports whether err is the server's answer to a task id it
// does not know: Invalid params (-32602), as the spec has servers answer
// tasks/get, tasks/result and tasks/cancel for an invalid or nonexistent
// taskId.
func unknownTask(err error) bool {
	var rpcErr *client.RPCError
	return errors.As(err, &rpcErr) && rpcErr.Code == client.CodeInvalidParams
}

// getErr is the error of tasks/get for id, nil when the server knows it.
func getErr(ctx context.Context, s *session.Session, id string) error {
	_, err := s.GetTask(ctx, id)
	return err
}

// noTask is the error for a task id the server does not know. It wraps
// the server's error: the exit code stays that of a JSON-RPC error (3).
func (f *Factory) noTask(id, server string, err error) error {
	return &noTaskError{msg: fmt.Sprintf("no task %q on %s (%s shows the current ones)", id, server, f.commandHint("tasks list", "")), err: err}
}

// noTaskError is a task id the server does not know.
type noTaskError struct {
	msg string
	err error
}

func (e *noTaskError) Error() string { return e.msg }
func (e *noTaskError) Unwrap() error { return e.err }
