package signing

import (
	"bytes"
	"testing"

	"github.com/gowebpki/jcs"
)

// FuzzJCSMatchesReference holds JCS to github.com/gowebpki/jcs (derived from
// the RFC author's reference implementation), which it replaced in the
// binary: whenever both accept an input, they must agree byte for byte.
func FuzzJCSMatchesReference(f *testing.F) {
	for _, seed := range []string{
		`{"b":[1,2.50,-0,1E30,1e-7,0.000001,123456789012345678901234],"a":"\u00e9\n\u001f\"","\u20ac":null,"\ud83d\ude00":true}`,
		`[5e-324,1.7976931348623157e308,9007199254740993,-1.5e-8,0.1,100,1e21,1e20]`,
		`{"\r":1,"\n":2,"1":3,"10":4,"\u0080":5,"\ufb33":6,"\ud800\udc00":7}`,
		`"\u2028\u2029\u007f/"`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := JCS(data)
		if err != nil {
			return
		}
		want, err := jcs.Transform(data)
		if err != nil {
			return
		}
		if !bytes.Equal(got, want) {
			t.Errorf("JCS(%q) = %q, reference gives %q", data, got, want)
		}
	})
}
