package session

import (
	"fmt"
	"strings"
	"sync"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/schema"
)

// OutputChecks checks a tool result's structuredContent against the tool's
// outputSchema (server/tools.mdx: clients SHOULD validate), compiling each
// schema once for the run.
type OutputChecks struct {
	// Schemas compiles the tools' schemas; the zero Cache works.
	Schemas *schema.Cache
	// Warn reports an outputSchema that does not compile (the server's
	// defect: the result goes unchecked); nil says nothing.
	Warn func(msg string)

	warned sync.Map // tools whose schema's failure was reported
}

// OutputError is a tool result that breaks the tool's outputSchema. The
// result was received and may be shown.
type OutputError struct {
	Tool       string
	Violations []schema.Violation
}

func (e *OutputError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the result of tool %q breaks its outputSchema:", e.Tool)
	for _, v := range e.Violations {
		b.WriteString("\n  " + v.String())
	}
	return b.String()
}

// Check checks res, a result of tool, and returns an [*OutputError] when
// it breaks the tool's outputSchema.
func (oc *OutputChecks) Check(tool *client.Tool, res *client.CallToolResult) error {
	if oc == nil || len(tool.OutputSchema) == 0 {
		return nil
	}
	if len(res.StructuredContent) == 0 || string(res.StructuredContent) == "null" {
		return &OutputError{Tool: tool.Name, Violations: []schema.Violation{{Msg: "structuredContent is missing, but the tool declares an outputSchema"}}}
	}
	cache := oc.Schemas
	if cache == nil {
		cache = &schema.Cache{}
		oc.Schemas = cache
	}
	sch, err := cache.Compile(tool.OutputSchema)
	if err != nil {
		if _, seen := oc.warned.LoadOrStore(tool.Name, true); !seen && oc.Warn != nil {
			oc.Warn(fmt.Sprintf("not checking structuredContent: the outputSchema of tool %q does not compile: %v", tool.Name, err))
		}
		return nil
	}
	violations, err := sch.ValidateJSON(res.StructuredContent)
	if err != nil {
		return fmt.Errorf("checking the structuredContent of tool %q: %w", tool.Name, err)
	}
	if len(violations) == 0 {
		return nil
	}
	return &OutputError{Tool: tool.Name, Violations: violations}
}
