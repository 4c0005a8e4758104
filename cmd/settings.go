package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/mcpctl/mcpctl/client"
	"github.com/mcpctl/mcpctl/config"
	"github.com/mcpctl/mcpctl/schema"
)

// addConfigFlags registers --config on root and the hook that fills the
// settings flags (-o, --timeout, --protocol-version) a command line leaves
// unset from MCPCTL_* variables and the config file.
func addConfigFlags(root *cobra.Command, f *Factory) {
	root.PersistentFlags().StringVar(&f.ConfigFile, "config", "", "Read settings and servers from `FILE`")
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		return f.applySettings(cmd)
	}
}

// settingAnnotation marks the flags that settings fill: a flag of another
// command may have the same name and another meaning (scaffold's --output).
const settingAnnotation = "mcpctl/setting"

// noSettingsAnnotation, as a command annotation, turns settings off for
// the whole command: nothing is read from the config file or MCPCTL_*.
const noSettingsAnnotation = "mcpctl/no-settings"

// markSetting marks the flag name of cmd as one the settings fill.
func markSetting(cmd *cobra.Command, name string) {
	_ = cmd.Flags().SetAnnotation(name, settingAnnotation, []string{"true"})
}

// applySettings gives each settings flag of cmd that the command line left
// unset its value from the environment (MCPCTL_OUTPUT, MCPCTL_TIMEOUT,
// MCPCTL_PROTOCOL_VERSION) or else the config file: flags > environment >
// config file > built-in default. The config file is read only by commands
// that have such a flag (marked by [markSetting]), and only when the flags
// and the environment leave one open.
func (f *Factory) applySettings(cmd *cobra.Command) error {
	fs := cmd.Flags()
	if cmd.Annotations[noSettingsAnnotation] != "" {
		return nil
	}
	for _, key := range config.SettingKeys() {
		flag := fs.Lookup(key)
		if flag == nil || flag.Changed || flag.Annotations[settingAnnotation] == nil {
			continue
		}
		value, source, err := config.ResolveSetting(key, flag, f.LookupEnv, f.Config)
		if err != nil {
			return err
		}
		if source == "default" {
			continue
		}
		if err := checkSetting(key, value); err != nil {
			return flagErrorf("%s: invalid %s %q: %v", source, key, value, err)
		}
		// Value.Set, unlike FlagSet.Set, leaves Changed false: the value
		// still did not come from the command line.
		if err := flag.Value.Set(value); err != nil {
			return flagErrorf("%s: invalid %s %q: %v", source, key, value, err)
		}
	}
	return nil
}

// checkSetting rejects a value from the environment or the config file
// that the flag would accept but the command would refuse, so that the
// error names where the value came from rather than a flag not given.
func checkSetting(key, value string) error {
	switch key {
	case config.KeyOutput:
		if !slices.Contains([]string{"text", "json", "yaml"}, value) {
			return errors.New("expected text, json or yaml")
		}
	case config.KeyProtocolVersion:
		if !slices.Contains(client.KnownProtocolVersions(), value) {
			return fmt.Errorf("supported: %s", strings.Join(client.KnownProtocolVersions(), ", "))
		}
	}
	return nil
}

// askInput asks for the value of a VS Code input on the terminal: a line
// from standard input, not echoed for a password. Without a terminal the
// error names the input and the variable that can answer it.
func (f *Factory) askInput(s config.Server, in config.Input) (string, error) {
	ios := f.IOStreams
	what := in.Description
	if what == "" {
		what = in.ID
	}
	if !ios.IsStdinTTY() {
		return "", fmt.Errorf("input %q (%s) must be typed in, but standard input is not a terminal; set %s to give it", in.ID, what, config.InputEnvName(in.ID))
	}
	prompt := what
	if len(in.Options) > 0 {
		prompt += " (" + strings.Join(in.Options, ", ") + ")"
	}
	if in.Default != "" && !in.Password {
		prompt += " [" + in.Default + "]"
	}
	fmt.Fprintf(ios.ErrOut, "%s (server %q): ", prompt, s.Name)
	var (
		line string
		err  error
	)
	if file, ok := ios.In.(*os.File); ok && in.Password && term.IsTerminal(int(file.Fd())) {
		var b []byte
		b, err = term.ReadPassword(int(file.Fd()))
		fmt.Fprintln(ios.ErrOut)
		line = string(b)
	} else {
		line, err = readLine(ios.In)
	}
	if err != nil {
		return "", fmt.Errorf("reading input %q: %w", in.ID, err)
	}
	if line == "" {
		line = in.Default
	}
	return line, nil
}

// readLine reads up to a newline a byte at a time, so that nothing after
// the line is consumed from standard input.
func readLine(r io.Reader) (string, error) {
	var b strings.Builder
	buf := make([]byte, 1)
	for {
		n, err := r.Read(buf)
		if n == 1 {
			if buf[0] == '\n' {
				return strings.TrimSuffix(b.String(), "\r"), nil
			}
			b.WriteByte(buf[0])
		}
		if errors.Is(err, io.EOF) {
			if b.Len() == 0 {
				return "", io.ErrUnexpectedEOF
			}
			return b.String(), nil
		}
		if err != nil {
			return "", err
		}
	}
}

// warnUnknownKeys warns, once per run since the file is loaded once, of
// each key at the top of the config file mcpctl does not know, naming the
// closest known one: "timout: 5" would otherwise be ignored without a word.
func (f *Factory) warnUnknownKeys(c *config.Config) {
	if c == nil {
		return
	}
	for _, k := range c.UnknownKeys() {
		msg := fmt.Sprintf("config file %s, line %d: unknown key %q is ignored", c.Path, k.Line, k.Name)
		if s := schema.Suggest(k.Name, config.FileKeys()); s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
		} else {
			msg += " (known: " + strings.Join(config.FileKeys(), ", ") + ")"
		}
		f.printer().Warning(msg)
	}
}
