package auth

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestStoreRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "mcpctl")
	s := NewStore(dir)
	if tok, err := s.Token("https://as", "https://mcp/x"); err != nil || tok != nil {
		t.Fatalf("empty store: Token = %v, %v; want nil, nil", tok, err)
	}
	exp := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	tok := &Token{AccessToken: "at-secret-1", TokenType: "Bearer", RefreshToken: "rt-secret-1", Scope: "b a", Expiry: exp, Issuer: "https://as", Resource: "https://mcp/x"}
	if err := s.SaveToken(tok); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveRegistration(&Registration{Issuer: "https://as", ClientID: "cid", ClientSecret: "cs-secret", Kind: "dynamic"}); err != nil {
		t.Fatal(err)
	}
	got, err := NewStore(dir).Token("https://as", "https://mcp/x")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(tok, got); diff != "" {
		t.Errorf("token after reload (-want +got):\n%s", diff)
	}
	if iss, _ := s.Issuer("https://mcp/x"); iss != "https://as" {
		t.Errorf("Issuer = %q, want the binding https://as", iss)
	}
	reg, _ := s.Registration("https://as")
	if reg == nil || reg.ClientID != "cid" {
		t.Errorf("Registration = %+v", reg)
	}
	list, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	want := []StoreEntry{{Issuer: "https://as", Resource: "https://mcp/x", Scopes: []string{"b", "a"}, Expiry: exp, TokenType: "Bearer", Refreshable: true, Registration: "dynamic", ClientID: "cid"}}
	if diff := cmp.Diff(want, list); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}

	// Replacing keeps one token per key.
	tok2 := *tok
	tok2.AccessToken = "at-secret-2"
	if err := s.SaveToken(&tok2); err != nil {
		t.Fatal(err)
	}
	if list, _ := s.List(); len(list) != 1 {
		t.Errorf("after replacing: %d tokens, want 1", len(list))
	}
	removed, err := s.DeleteToken("", "https://mcp/x")
	if err != nil || !removed {
		t.Fatalf("DeleteToken = %v, %v", removed, err)
	}
	if got, _ := s.Token("https://as", "https://mcp/x"); got != nil {
		t.Errorf("token still there after delete")
	}
	if iss, _ := s.Issuer("https://mcp/x"); iss != "" {
		t.Errorf("binding still there after delete: %q", iss)
	}
	if removed, _ := s.DeleteToken("", "https://mcp/x"); removed {
		t.Errorf("second delete reports a removal")
	}
	if reg, _ := s.Registration("https://as"); reg == nil {
		t.Errorf("deleting tokens removed the registration")
	}
	if err := s.DeleteRegistration("https://as"); err != nil {
		t.Fatal(err)
	}
	if reg, _ := s.Registration("https://as"); reg != nil {
		t.Errorf("registration still there after delete")
	}
}

func TestStorePermissionsAndAtomicity(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mcpctl")
	s := NewStore(dir)
	for i := range 3 {
		if err := s.SaveToken(&Token{AccessToken: strings.Repeat("x", i+1), Issuer: "https://as", Resource: "https://r"}); err != nil {
			t.Fatal(err)
		}
	}
	fi, err := os.Stat(filepath.Join(dir, StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	if m := fi.Mode().Perm(); m != 0o600 {
		t.Errorf("file mode %o, want 600", m)
	}
	di, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m := di.Mode().Perm(); m != 0o700 {
		t.Errorf("dir mode %o, want 700", m)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	// The lock file stays (removing it would race with another process
	// taking it); no temporary file may.
	if want := []string{StoreFile, StoreFile + ".lock"}; !cmp.Equal(names, want) {
		t.Errorf("dir holds %v, want %v (no temporary files left)", names, want)
	}
}

func TestStoreTightensLooseDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mcpctl")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := NewStore(dir).SaveRegistration(&Registration{Issuer: "https://as", ClientID: "c"}); err != nil {
		t.Fatal(err)
	}
	di, _ := os.Stat(dir)
	if m := di.Mode().Perm(); m != 0o700 {
		t.Errorf("dir mode %o, want 700", m)
	}
}

func TestStoreCorruptFile(t *testing.T) {
	dir := t.TempDir()
	secret := "at-in-a-broken-file"
	if err := os.WriteFile(filepath.Join(dir, StoreFile), []byte(`{"tokens":[{"access_token":"`+secret), 0o600); err != nil {
		t.Fatal(err)
	}
	var warnings []string
	s := &Store{Dir: dir, Warn: func(m string) { warnings = append(warnings, m) }}
	tok, err := s.Token("https://as", "https://r")
	if err != nil || tok != nil {
		t.Fatalf("Token on a corrupt file = %v, %v; want nil, nil", tok, err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "not valid JSON") {
		t.Fatalf("warnings = %q, want one about invalid JSON", warnings)
	}
	if strings.Contains(warnings[0], secret) {
		t.Errorf("warning quotes the file's content: %q", warnings[0])
	}
	if _, err := os.Stat(filepath.Join(dir, StoreFile+".corrupt")); err != nil {
		t.Errorf("the corrupt file was not kept aside: %v", err)
	}
	if err := s.SaveToken(&Token{AccessToken: "new", Issuer: "https://as", Resource: "https://r"}); err != nil {
		t.Fatal(err)
	}
	if tok, _ := s.Token("https://as", "https://r"); tok == nil || tok.AccessToken != "new" {
		t.Errorf("after saving over a corrupt file: %+v", tok)
	}
}

func TestStoreRejectsIncompleteKeys(t *testing.T) {
	s := NewStore(t.TempDir())
	if err := s.SaveToken(&Token{AccessToken: "x"}); err == nil {
		t.Error("SaveToken without issuer and resource succeeded")
	}
	if err := s.SaveRegistration(&Registration{ClientID: "x"}); err == nil {
		t.Error("SaveRegistration without issuer succeeded")
	}
}

// TestStoreConcurrentProcesses saves tokens through separate Stores on one
// directory at once, as separate mcpctl processes would: the file lock
// keeps every one of them.
func TestStoreConcurrentProcesses(t *testing.T) {
	dir := t.TempDir()
	const n = 16
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := NewStore(dir)
			tok := &Token{AccessToken: fmt.Sprintf("at-%d", i), TokenType: "Bearer", Issuer: "https://as.example.com", Resource: fmt.Sprintf("https://mcp%d.example.com/mcp", i)}
			if err := s.SaveToken(tok); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	list, err := NewStore(dir).List()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != n {
		t.Errorf("%d tokens stored, want %d", len(list), n)
	}
}

func TestStoreClientPins(t *testing.T) {
	s := NewStore(t.TempDir())
	if iss, err := s.ClientIssuer("cid"); err != nil || iss != "" {
		t.Fatalf("ClientIssuer of an empty store = %q, %v", iss, err)
	}
	for _, iss := range []string{"https://a.example", "https://b.example"} {
		if err := s.PinClient("cid", iss); err != nil {
			t.Fatal(err)
		}
	}
	if iss, _ := s.ClientIssuer("cid"); iss != "https://a.example" {
		t.Errorf("pin = %q, want the first issuer", iss)
	}
	if had, err := s.UnpinClient("cid"); !had || err != nil {
		t.Errorf("UnpinClient = %v, %v", had, err)
	}
	if had, _ := s.UnpinClient("cid"); had {
		t.Error("UnpinClient of a forgotten pin reports one")
	}
	if iss, _ := s.ClientIssuer("cid"); iss != "" {
		t.Errorf("pin after UnpinClient = %q", iss)
	}
}
