package ui

import (
	"bytes"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/render"
)

// The tasks pane: the server's tasks with their status (tasks/list, or in
// the modern era, which has no list, the tasks this ui started, each
// refreshed with tasks/get), c cancelling the selected one.

// tasksMsg is the tasks fetched.
type tasksMsg struct {
	tasks []client.Task
	err   error
}

// taskSeenMsg is a task a call of the ui started, or its new status.
type taskSeenMsg struct{ task client.Task }

// cancelledMsg is the outcome of tasks/cancel.
type cancelledMsg struct {
	id   string
	task *client.Task
	err  error
}

// refreshTasks lists the tasks; a server without tasks/list has the ones
// seen refreshed one by one.
func (m *Model) refreshTasks() tea.Cmd {
	if m.sess == nil {
		return nil
	}
	ctx, s := m.ctx, m.sess
	known := append([]client.Task(nil), m.tasks...)
	return func() tea.Msg {
		tasks, err := s.ListTasks(ctx)
		if err == nil {
			return tasksMsg{tasks: tasks}
		}
		for i, t := range known {
			if got, gerr := s.GetTask(ctx, t.TaskID); gerr == nil {
				known[i] = *got
			}
		}
		return tasksMsg{tasks: known, err: err}
	}
}

func (m *Model) setTasks(tasks []client.Task) {
	m.tasks = tasks
	items := make([]entry, len(tasks))
	for i, t := range tasks {
		desc := t.Status
		if t.StatusMessage != "" {
			desc += ": " + t.StatusMessage
		}
		items[i] = newEntry(t.TaskID, desc)
	}
	l := &m.lists[paneTasks]
	cursor, filter := l.cursor, l.filter
	*l = newList(items)
	l.setFilter(filter)
	l.cursor = max(0, min(cursor, len(l.shown)-1))
}

// taskSeen adds or updates a task the ui started.
func (m *Model) taskSeen(t client.Task) {
	tasks := append([]client.Task(nil), m.tasks...)
	for i := range tasks {
		if tasks[i].TaskID == t.TaskID {
			tasks[i] = t
			m.setTasks(tasks)
			return
		}
	}
	m.setTasks(append(tasks, t))
}

// tasksKey handles the tasks pane's own keys: c cancels, u updates.
func (m *Model) tasksKey(key string) (tea.Cmd, bool) {
	switch key {
	case "u":
		return m.refreshTasks(), true
	case "c":
		i := m.lists[paneTasks].selected()
		if i < 0 {
			return nil, true
		}
		id := m.tasks[i].TaskID
		m.status = "cancelling task " + oneLine(id) + "…"
		ctx, s := m.ctx, m.sess
		return func() tea.Msg {
			t, err := s.CancelTask(ctx, id)
			return cancelledMsg{id: id, task: t, err: err}
		}, true
	}
	return nil, false
}

func (m *Model) cancelled(msg cancelledMsg) tea.Cmd {
	if msg.err != nil {
		m.status = "task " + oneLine(msg.id) + " not cancelled: " + oneLine(msg.err.Error())
		return nil
	}
	m.status = "task " + oneLine(msg.id) + " cancelled"
	if msg.task != nil && msg.task.Status != "" {
		m.taskSeen(*msg.task)
	}
	return m.refreshTasks()
}

// describeTask is a task's fields.
func (m *Model) describeTask(i, width int) []string {
	t := m.tasks[i]
	fields := [][2]string{{"Task", t.TaskID}, {"Status", t.Status}}
	for _, f := range [][2]string{{"Message", t.StatusMessage}, {"Created", t.CreatedAt}, {"Updated", t.LastUpdatedAt}} {
		if f[1] != "" {
			fields = append(fields, f)
		}
	}
	var b bytes.Buffer
	p := &render.Printer{Out: &b, ErrOut: &b, TTY: true, Color: m.opts.Color, Width: width}
	if err := p.Fields(fields); err != nil {
		b.WriteString(err.Error())
	}
	return strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
}
