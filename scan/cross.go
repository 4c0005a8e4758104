package scan

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// crossServer reports what the servers of one configuration do to each
// other: tools of the same name, and definitions of one server that name
// another server's tools.
func crossServer(servers []*Server) []Finding {
	type owner struct {
		server *Server
		tool   string
	}
	byName := map[string][]owner{}
	for _, s := range servers {
		for _, it := range decodeItems("tool", s.Tools) {
			if it.name != "" {
				byName[it.name] = append(byName[it.name], owner{s, it.name})
			}
		}
	}
	var out []Finding
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		os := byName[n]
		var servs []string
		for _, o := range os {
			if !slices.Contains(servs, o.server.Name) {
				servs = append(servs, o.server.Name)
			}
		}
		if len(servs) < 2 {
			continue
		}
		for _, o := range os {
			c := &checker{server: o.server}
			others := slices.DeleteFunc(slices.Clone(servs), func(s string) bool { return s == o.server.Name })
			c.add(NameCollision, "", "tool", n, "name", fmt.Sprintf("server %s also offers a tool named %q; one may shadow the other", strings.Join(quoteAll(others), ", "), n))
			out = append(out, c.findings...)
		}
	}
	// A tool name of another server, as a word of its own, in a
	// definition's text. Names shared by both servers are collisions
	// already, and short common words would match everywhere.
	for _, s := range servers {
		c := &checker{server: s}
		own := map[string]bool{}
		for _, it := range decodeItems("tool", s.Tools) {
			own[it.name] = true
		}
		items := append(decodeItems("tool", s.Tools), decodeItems("prompt", s.Prompts)...)
		for _, other := range servers {
			if other == s {
				continue
			}
			for _, ot := range decodeItems("tool", other.Tools) {
				if own[ot.name] || len(ot.name) < 4 || !strings.ContainsAny(ot.name, "_-.") && len(ot.name) < 6 {
					continue
				}
				re := regexp.MustCompile(`(^|[^\w.-])` + regexp.QuoteMeta(ot.name) + `($|[^\w-])`)
				for _, it := range items {
					for _, t := range it.texts() {
						if t.fkind != FieldName && re.MatchString(t.value) {
							c.add(CrossReference, "", t.kind, t.item, t.field,
								fmt.Sprintf("names %q, a tool of server %q", ot.name, other.Name))
						}
					}
				}
			}
		}
		out = append(out, c.findings...)
	}
	return out
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}
