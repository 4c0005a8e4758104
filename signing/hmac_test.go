package signing

import (
	"regexp"
	"testing"
)

func TestSign(t *testing.T) {
	// RFC 4231 test cases 2 and 6 for HMAC-SHA256.
	tests := []struct {
		name      string
		key, data string
		want      string
	}{
		{"rfc4231 case 2", "Jefe", "what do ya want for nothing?", "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"},
		{"rfc4231 case 6", string(repeatByte(0xaa, 131)), "Test Using Larger Than Block-Size Key - Hash Key First", "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Sign([]byte(tt.key), []byte(tt.data)); got != tt.want {
				t.Errorf("Sign = %s, want %s", got, tt.want)
			}
		})
	}
}

func repeatByte(b byte, n int) []byte {
	s := make([]byte, n)
	for i := range s {
		s[i] = b
	}
	return s
}

func TestEqual(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"abc", "abc", true},
		{"abc", "abd", false},
		{"abc", "ab", false},
		{"", "", true},
		{"ABC", "abc", false},
	}
	for _, tt := range tests {
		if got := Equal(tt.a, tt.b); got != tt.want {
			t.Errorf("Equal(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestNewNonce(t *testing.T) {
	hex32 := regexp.MustCompile(`^[0-9a-f]{32}$`)
	seen := map[string]bool{}
	for range 100 {
		n, err := NewNonce()
		if err != nil {
			t.Fatal(err)
		}
		if !hex32.MatchString(n) {
			t.Fatalf("nonce %q is not 32 lower-case hex digits", n)
		}
		if seen[n] {
			t.Fatalf("nonce %q repeated", n)
		}
		seen[n] = true
	}
}
