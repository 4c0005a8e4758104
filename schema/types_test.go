package schema

import "testing"

func TestIsJSONNumber(t *testing.T) {
	tests := map[string]bool{
		"0": true, "-0": true, "7": true, "-12": true, "2.50": true, "1e3": true,
		"1E+2": true, "1.5e-3": true, "0.0": true,
		"": false, "-": false, "+1": false, "01": false, ".5": false, "5.": false,
		"1e": false, "1e+": false, "0x10": false, "1_000": false, "NaN": false,
		"Infinity": false, " 1": false, "1 ": false, "--1": false, "1.2.3": false,
	}
	for s, want := range tests {
		if got := isJSONNumber(s); got != want {
			t.Errorf("isJSONNumber(%q) = %v, want %v", s, got, want)
		}
	}
}
