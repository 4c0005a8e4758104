package signing

import (
	"bytes"
	"testing"
)

// membersSeeds are objects the byte-level split must read as the decoder
// does: escaped and non-ASCII names, nesting, strings holding brackets
// and quotes, whitespace everywhere, and texts that are no object.
var membersSeeds = []string{
	`{}`, ` { } `, `{"a":1}`,
	`{"content":[{"type":"text","text":"hello 1"}],"_meta":{"signature":{"alg":"HMAC-SHA256","nonce":"n"}}}`,
	" {\n\t\"a\" :\t[ 1 , {\"b\" : \"}]\\\"\" } ] ,\r\n \"_meta\" : { \"x\" : null } } ",
	`{"\u005fmeta":{"signature":1},"_meta":{}}`,
	`{"é":"ü","\ud83d\ude00":true,"a\"b":-1.5e3,"":false}`,
	`{"a":"\\","b":"\\\"","c":[[],{},[{}]]}`,
	`{"a":1,"a":2}`, `[1,2]`, `"s"`, `1`, `null`,
	`{"a":}`, `{"a":1`, `{"a":1}x`, `{"a":1}{}`, `{a:1}`, "{\"a\":\"\xff\"}", "{\"\xff\":1}",
}

// TestScanMembersAgrees holds the byte-level split to the decoder's on
// the seeds: the same members, names and bytes, or both an error.
func TestScanMembersAgrees(t *testing.T) {
	for _, s := range membersSeeds {
		checkMembersAgree(t, []byte(s))
	}
}

// FuzzScanMembers holds the byte-level split to the decoder's on any
// input.
//
//	go test -run='^$' -fuzz=FuzzScanMembers -fuzztime=10s ./signing/
func FuzzScanMembers(f *testing.F) {
	for _, s := range membersSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkMembersAgree(t, data) })
}

func checkMembersAgree(t *testing.T, obj []byte) {
	t.Helper()
	got, gotErr := objectMembers(obj)
	want, wantErr := decodeMembers(obj)
	if (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("%q: objectMembers error %v, decodeMembers error %v", obj, gotErr, wantErr)
	}
	if gotErr != nil {
		if gotErr.Error() != wantErr.Error() {
			t.Fatalf("%q: objectMembers error %q, decodeMembers error %q", obj, gotErr, wantErr)
		}
		return
	}
	if len(got) != len(want) {
		t.Fatalf("%q: %d members, the decoder reads %d", obj, len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if !bytes.Equal(g.rawName, w.rawName) || g.name != w.name || !bytes.Equal(g.value, w.value) {
			t.Fatalf("%q: member %d is %q %q %q, the decoder reads %q %q %q", obj, i, g.rawName, g.name, g.value, w.rawName, w.name, w.value)
		}
	}
}

// ijsonSeeds are texts CheckIJSON's byte scan must judge as its decoding
// does: duplicates at any depth, escaped and non-ASCII names, integers on
// either side of ±(2^53-1), and texts that are not JSON.
var ijsonSeeds = []string{
	`{"a":1,"b":{"a":2}}`, `{"a":1,"a":2}`, `[{"x":1},{"x":1}]`, `{"a":{"b":1,"b":2}}`,
	`{"\u0061":1,"a":2}`, `{"é":1,"\u00e9":2}`, `{"é":1,"e":2}`, `{"a:":"b","a":":"}`,
	`9007199254740991`, `9007199254740992`, `-9007199254740992`, `[123456789012345,1234567890123456]`,
	`1e400`, `12345678901234567890.5`, `{"n":-0.0000000000000001}`,
	`{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17,"k18":18,"k19":19,"k20":20,"k21":21,"k22":22,"k23":23,"k24":24,"k25":25,"k26":26,"k27":27,"k28":28,"k29":29,"k30":30,"k31":31,"k32":32,"k0":33}`,
	`{"a":1`, `{"a" 1}`, `[1,]`, `tru`, "\"\xff\"", "{\"\xff\":1,\"\xfe\":2}",
}

// TestCheckIJSONScanAgrees holds CheckIJSON (its byte scan, then the
// decoding when the scan is unsure) to the decoding alone on the seeds.
func TestCheckIJSONScanAgrees(t *testing.T) {
	for _, s := range ijsonSeeds {
		checkIJSONAgrees(t, []byte(s))
	}
}

// FuzzCheckIJSONScan holds CheckIJSON to the decoding alone on any input.
//
//	go test -run='^$' -fuzz=FuzzCheckIJSONScan -fuzztime=10s ./signing/
func FuzzCheckIJSONScan(f *testing.F) {
	for _, s := range ijsonSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkIJSONAgrees(t, data) })
}

func checkIJSONAgrees(t *testing.T, data []byte) {
	t.Helper()
	got, want := CheckIJSON(data, "/x"), checkIJSON(data, "/x")
	if (got == nil) != (want == nil) || (got != nil && got.Error() != want.Error()) {
		t.Fatalf("%q: CheckIJSON says %v, the decoding %v", data, got, want)
	}
}

// FuzzPlainString holds the JCS parser's quick read of a plain string to
// its full one: the same value and the same position after it.
//
//	go test -run='^$' -fuzz=FuzzPlainString -fuzztime=10s ./signing/
func FuzzPlainString(f *testing.F) {
	for _, s := range []string{`"hello 1"`, `"a\"b"`, `"é"`, "\"tab\there\"", `"unterminated`, `""`, `"x",1`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 || data[0] != '"' {
			return
		}
		quick := &pyParser{data: data}
		s, ok := quick.plainString()
		if !ok {
			if quick.pos != 0 {
				t.Fatalf("%q: plainString moved to %d and gave up", data, quick.pos)
			}
			return
		}
		full := &pyParser{data: data}
		runes, err := full.str()
		if err != nil || string(runes) != s || full.pos != quick.pos {
			t.Fatalf("%q: plainString %q at %d, str %q at %d (%v)", data, s, quick.pos, string(runes), full.pos, err)
		}
	})
}
