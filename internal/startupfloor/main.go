// Command startupfloor is the start-up floor mcpctl is measured against: a
// program that links only the four libraries of mcpctl's design (cobra,
// viper, lipgloss, jsonschema/v5) and does the work of `mcpctl version`
// (build a cobra command tree, run the version subcommand, print one line).
// The libraries are linked and initialised as in mcpctl; like mcpctl, it
// loads no config file and compiles no schema for `version`.
//
// Built with -tags gojq it is the second baseline, "floor + gojq": the same
// program that also links github.com/itchyny/gojq as mcpctl does for --jq
// (parse, compile, run, marshal), and so pays gojq's package
// initialisation, which builds its builtin function tables whatever the
// command (see jq.go).
//
// scripts/startup.sh builds these and mcpctl and compares their start-up.
package main

import (
	"fmt"
	"os"

	"github.com/charmbracelet/lipgloss"
	"github.com/santhosh-tekuri/jsonschema/v5"
	"github.com/spf13/cobra"
	"github.com/spf13/viper"
)

// version is printed as mcpctl prints its own.
const version = "0.0.0-floor"

func main() {
	root := &cobra.Command{
		Use:           "startupfloor",
		Short:         "Start-up floor for mcpctl",
		SilenceErrors: true,
		SilenceUsage:  true,
		Version:       version,
	}
	root.PersistentFlags().String("config", "", "config file")
	root.PersistentFlags().StringP("output", "o", "", "output format")
	root.AddCommand(&cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "startupfloor %s\n", version)
			return err
		},
	}, &cobra.Command{
		// use keeps the other three libraries linked, as mcpctl links them,
		// without running them on the measured path.
		Use:    "use",
		Hidden: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			v := viper.New()
			v.SetConfigFile(args[0])
			if err := v.ReadInConfig(); err != nil {
				return err
			}
			if _, err := jsonschema.CompileString("floor.json", v.GetString("schema")); err != nil {
				return err
			}
			if err := useJQ(cmd.OutOrStdout(), v); err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), lipgloss.NewStyle().Bold(true).Render("ok"))
			return nil
		},
	})
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "startupfloor:", err)
		os.Exit(1)
	}
}
