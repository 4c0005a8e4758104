package cmd

import (
	"strconv"
	"strings"

	"github.com/spf13/cobra"
)

// wrapHelp makes the flag lists of root's help and usage wrap their
// descriptions at word boundaries to width, under the description column,
// instead of leaving the terminal to break them mid-word. Commands that set
// their own usage template keep it.
func wrapHelp(root *cobra.Command, width int) {
	if width <= 0 {
		return
	}
	w := strconv.Itoa(width)
	tmpl := root.UsageTemplate()
	for _, set := range []string{".LocalFlags", ".InheritedFlags"} {
		tmpl = strings.ReplaceAll(tmpl, set+".FlagUsages", "("+set+".FlagUsagesWrapped "+w+")")
	}
	root.SetUsageTemplate(tmpl)
}
