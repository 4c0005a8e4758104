package transport

import (
	"net/url"
	"os"
	"runtime"
	"strings"
)

// DefaultEnv returns the variables of environ (KEY=VALUE pairs, as from
// os.Environ) that a stdio server gets when [Command].InheritEnv is false:
// what a program needs to start, find its tools, speak the user's language
// and reach the network, and nothing that usually holds a secret. It is the
// official MCP SDKs' default set, extended for servers launched through
// npx, uvx or docker:
//
//   - on POSIX systems: HOME, LOGNAME, PATH, SHELL, TERM, USER (the SDKs'
//     set); LANG, LANGUAGE, LC_* and TZ (locale and time zone); TMPDIR and
//     XDG_CACHE_HOME, XDG_CONFIG_HOME, XDG_DATA_HOME, XDG_STATE_HOME,
//     XDG_RUNTIME_DIR (where package runners keep their caches);
//   - on Windows: APPDATA, HOMEDRIVE, HOMEPATH, LOCALAPPDATA, PATH,
//     PROCESSOR_ARCHITECTURE, PROGRAMFILES, SYSTEMDRIVE, SYSTEMROOT, TEMP,
//     USERNAME, USERPROFILE (the SDKs' set) and COMSPEC, PATHEXT, TMP,
//     WINDIR (needed to run npx.cmd and its kind); names match in any case;
//   - everywhere: SSL_CERT_FILE, SSL_CERT_DIR and NODE_EXTRA_CA_CERTS (paths
//     to the certificates a corporate network requires), and HTTP_PROXY,
//     HTTPS_PROXY, NO_PROXY, ALL_PROXY in upper and lower case, unless the
//     proxy URL carries a user name or password, which is a credential.
//
// Shell functions exported by bash (a name starting with BASH_FUNC_ or a
// value starting with "()") are dropped, as the SDKs do. Entries keep
// their order; later duplicates win as they would in the process. Pass
// anything else with -e (Command.Env), or everything with --inherit-env.
func DefaultEnv(environ []string) []string {
	return defaultEnv(environ, runtime.GOOS == "windows")
}

func defaultEnv(environ []string, windows bool) []string {
	env := []string{} // never nil: a nil Cmd.Env would inherit everything
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		if strings.HasPrefix(name, "BASH_FUNC_") || strings.HasPrefix(value, "()") {
			continue
		}
		if safeEnvName(name, windows) && !(isProxyVar(name) && proxyHasCredentials(value)) {
			env = append(env, kv)
		}
	}
	return env
}

// safeEnvName reports whether the variable name belongs to the default set
// documented on [DefaultEnv]. It is a switch rather than a table so that
// the package holds no mutable state.
func safeEnvName(name string, windows bool) bool {
	if windows {
		name = strings.ToUpper(name)
		switch name {
		case "APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH",
			"PROCESSOR_ARCHITECTURE", "PROGRAMFILES", "SYSTEMDRIVE", "SYSTEMROOT",
			"TEMP", "USERNAME", "USERPROFILE",
			"COMSPEC", "PATHEXT", "TMP", "WINDIR":
			return true
		}
	} else {
		switch name {
		case "HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER",
			"LANG", "LANGUAGE", "TZ",
			"TMPDIR", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME",
			"XDG_STATE_HOME", "XDG_RUNTIME_DIR":
			return true
		}
		if strings.HasPrefix(name, "LC_") {
			return true
		}
	}
	switch name {
	case "SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS":
		return true
	}
	return isProxyVar(name)
}

// isProxyVar reports whether name is one of the proxy variables HTTP
// libraries honour, in either of the cases they accept.
func isProxyVar(name string) bool {
	switch strings.ToUpper(name) {
	case "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY":
		return name == strings.ToUpper(name) || name == strings.ToLower(name)
	}
	return false
}

// proxyHasCredentials reports whether a proxy setting embeds a user name or
// password ("http://user:pass@proxy:3128"). A value that does not parse as
// a URL is judged by whether it has an "@" before its host.
func proxyHasCredentials(value string) bool {
	if !strings.Contains(value, "@") {
		return false
	}
	u, err := url.Parse(value)
	if err != nil || u.Host == "" {
		// "user:pass@proxy:3128" without a scheme, or something stranger:
		// when unsure, keep it out.
		return true
	}
	return u.User != nil
}

// environment is the server's environment as described on [Command].
func (c *Command) environment() []string {
	environ := c.Environ
	if environ == nil {
		environ = os.Environ()
	}
	var env []string
	if c.InheritEnv {
		env = append(make([]string, 0, len(environ)+len(c.Env)), environ...)
	} else {
		env = DefaultEnv(environ)
	}
	return append(env, c.Env...)
}
