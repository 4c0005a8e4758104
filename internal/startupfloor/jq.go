//go:build gojq

package main

import (
	"fmt"
	"io"

	"github.com/itchyny/gojq"
	"github.com/spf13/viper"
)

// useJQ runs the config's jq expression on its input as mcpctl's --jq does
// (cmd/output.go), so that the floor links the same parts of gojq.
func useJQ(w io.Writer, v *viper.Viper) error {
	q, err := gojq.Parse(v.GetString("jq"))
	if err != nil {
		return err
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return err
	}
	iter := code.Run(v.Get("input"))
	for {
		res, ok := iter.Next()
		if !ok {
			return nil
		}
		if err, ok := res.(error); ok {
			return err
		}
		out, err := gojq.Marshal(res)
		if err != nil {
			return err
		}
		fmt.Fprintln(w, string(out))
	}
}
