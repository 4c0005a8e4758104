package transport

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDefaultEnv(t *testing.T) {
	tests := []struct {
		name    string
		windows bool
		environ []string
		want    []string
	}{
		{"the SDKs' set", false,
			[]string{"HOME=/h", "LOGNAME=u", "PATH=/bin", "SHELL=/bin/sh", "TERM=xterm", "USER=u"},
			[]string{"HOME=/h", "LOGNAME=u", "PATH=/bin", "SHELL=/bin/sh", "TERM=xterm", "USER=u"}},
		{"locale, caches and certificates", false,
			[]string{"LANG=de_DE.UTF-8", "LC_ALL=C", "LC_TIME=en_GB", "TZ=Europe/Berlin", "TMPDIR=/t", "XDG_CACHE_HOME=/c", "XDG_RUNTIME_DIR=/run/user/1", "SSL_CERT_FILE=/ca.pem", "NODE_EXTRA_CA_CERTS=/corp.pem"},
			[]string{"LANG=de_DE.UTF-8", "LC_ALL=C", "LC_TIME=en_GB", "TZ=Europe/Berlin", "TMPDIR=/t", "XDG_CACHE_HOME=/c", "XDG_RUNTIME_DIR=/run/user/1", "SSL_CERT_FILE=/ca.pem", "NODE_EXTRA_CA_CERTS=/corp.pem"}},
		{"secrets stay behind", false,
			[]string{"GITHUB_TOKEN=ghp_x", "AWS_SECRET_ACCESS_KEY=k", "OPENAI_API_KEY=sk", "PATH=/bin", "SSH_AUTH_SOCK=/s", "MCPCTL_BEARER=b"},
			[]string{"PATH=/bin"}},
		{"shell functions dropped", false,
			[]string{"BASH_FUNC_f%%=() {  echo hi\n}", "TERM=() { :; }", "PATH=/bin"},
			[]string{"PATH=/bin"}},
		{"proxies without credentials", false,
			[]string{"HTTP_PROXY=http://proxy:3128", "https_proxy=http://proxy:3128", "NO_PROXY=localhost,127.0.0.1", "ALL_PROXY=socks5://p:1080", "Http_Proxy=http://x"},
			[]string{"HTTP_PROXY=http://proxy:3128", "https_proxy=http://proxy:3128", "NO_PROXY=localhost,127.0.0.1", "ALL_PROXY=socks5://p:1080"}},
		{"proxies with credentials", false,
			[]string{"HTTPS_PROXY=http://user:pw@proxy:3128", "http_proxy=user:pw@proxy:3128", "ALL_PROXY=socks5://token@p:1080"},
			[]string{}},
		{"malformed entries", false,
			[]string{"=x", "PATH", "HOME=/h"},
			[]string{"HOME=/h"}},
		{"duplicates keep their order", false,
			[]string{"PATH=/a", "PATH=/b"},
			[]string{"PATH=/a", "PATH=/b"}},
		{"windows", true,
			[]string{"Path=C:\\bin", "SystemRoot=C:\\Windows", "APPDATA=a", "USERPROFILE=u", "PATHEXT=.COM;.EXE", "HOME=/h", "GITHUB_TOKEN=x", "ComSpec=cmd.exe"},
			[]string{"Path=C:\\bin", "SystemRoot=C:\\Windows", "APPDATA=a", "USERPROFILE=u", "PATHEXT=.COM;.EXE", "ComSpec=cmd.exe"}},
		{"windows has no POSIX names", true,
			[]string{"SHELL=/bin/sh", "LANG=C", "TEMP=t"},
			[]string{"TEMP=t"}},
		{"nothing", false, nil, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := defaultEnv(tt.environ, tt.windows)
			if got == nil {
				t.Fatal("defaultEnv returned nil, which exec.Cmd would read as inherit everything")
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("defaultEnv (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCommandEnvironmentList(t *testing.T) {
	environ := []string{"PATH=/bin", "SECRET=s"}
	tests := []struct {
		name string
		cmd  Command
		want []string
	}{
		{"default", Command{Environ: environ, Env: []string{"A=1"}}, []string{"PATH=/bin", "A=1"}},
		{"inherit", Command{Environ: environ, Env: []string{"A=1"}, InheritEnv: true}, []string{"PATH=/bin", "SECRET=s", "A=1"}},
		{"empty environ is not nil", Command{Environ: []string{}}, []string{}},
	}
	for _, tt := range tests {
		got := tt.cmd.environment()
		if diff := cmp.Diff(tt.want, got); diff != "" || got == nil {
			t.Errorf("%s: environment (-want +got):\n%s", tt.name, diff)
		}
		if len(environ) != 2 || environ[1] != "SECRET=s" {
			t.Fatalf("%s: environment modified its Environ: %q", tt.name, environ)
		}
	}
}
