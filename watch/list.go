package watch

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"

	"github.com/mcpctl/mcpctl/client"
)

// list is one list a watcher keeps to say what changed: the kind a
// list_changed notification names, its method and key, the member that
// identifies an item, and the items last fetched.
type list struct {
	kind, method, key, id string
	items                 map[string]string // id → the item's compact JSON
}

// listID is a list whose changes a watch explains, as a list_changed
// notification names it, and the member that identifies its items.
type listID struct{ kind, id string }

func listIDs() []listID {
	return []listID{{"tools", "name"}, {"resources", "uri"}, {"prompts", "name"}}
}

// ListKinds returns the kinds of list whose changes a watch explains:
// tools, resources and prompts.
func ListKinds() []string {
	var kinds []string
	for _, l := range listIDs() {
		kinds = append(kinds, l.kind)
	}
	return kinds
}

// newList returns the list of kind with its method and key from the
// client's one table ([client.ListMethods]); ok is false for a kind that
// is not one of [ListKinds].
func newList(kind string) (l *list, ok bool) {
	ids := listIDs()
	i := slices.IndexFunc(ids, func(x listID) bool { return x.kind == kind })
	if i < 0 {
		return nil, false
	}
	m, ok := client.LookupList(kind)
	if !ok {
		return nil, false
	}
	return &list{kind: kind, method: m.Method, key: m.Key, id: ids[i].id}, true
}

// fetch lists l again and returns what changed since the last fetch.
func (l *list) fetch(ctx context.Context, s Session) (added, removed, changed []string, err error) {
	raw, err := s.ListAll(ctx, l.method, l.key)
	if err != nil {
		return nil, nil, nil, err
	}
	items := make(map[string]string, len(raw))
	for _, r := range raw {
		var item map[string]json.RawMessage
		var id string
		if json.Unmarshal(r, &item) != nil || json.Unmarshal(item[l.id], &id) != nil {
			continue // not an item of this list: the result checks report it
		}
		var b bytes.Buffer
		if json.Compact(&b, r) == nil {
			items[id] = b.String()
		}
	}
	added, removed, changed = []string{}, []string{}, []string{}
	for id, v := range items {
		old, ok := l.items[id]
		switch {
		case !ok:
			added = append(added, id)
		case old != v:
			changed = append(changed, id)
		}
	}
	for id := range l.items {
		if _, ok := items[id]; !ok {
			removed = append(removed, id)
		}
	}
	slices.Sort(added)
	slices.Sort(removed)
	slices.Sort(changed)
	l.items = items
	return added, removed, changed, nil
}

// WantListChanges adds the list changes of kind (tools, resources or
// prompts) to what a subscription asks for.
func WantListChanges(want *client.SubscriptionFilter, kind string) {
	switch kind {
	case "tools":
		want.ToolsListChanged = true
	case "resources":
		want.ResourcesListChanged = true
	case "prompts":
		want.PromptsListChanged = true
	}
}
