package client

import (
	"encoding/json"
	"strings"
	"testing"
	"unsafe"
)

// TestContentTextRaw: a text block keeps its text's JSON in TextRaw, a
// sub-slice of the result, and decodes it into Text only up to
// MaxDecodedText bytes.
func TestContentTextRaw(t *testing.T) {
	big := `"` + strings.Repeat(`ab\n`, MaxDecodedText/4+1) + `"`
	bigText := strings.Repeat("ab\n", MaxDecodedText/4+1)
	tests := []struct {
		name         string
		block        string
		wantText     string
		wantRaw      string // "" for none
		wantString   string // TextString
		wantBlockRaw bool
		wantErr      bool
	}{
		{name: "small text decoded", block: `{"type":"text","text":"a\u00e9\n"}`, wantText: "aé\n", wantRaw: `"a\u00e9\n"`, wantString: "aé\n"},
		{name: "type after text", block: `{"text":"x","type":"text"}`, wantText: "x", wantRaw: `"x"`, wantString: "x"},
		{name: "large text left raw", block: `{"type":"text","text":` + big + `}`, wantRaw: big, wantString: bigText},
		{name: "null text", block: `{"type":"text","text":null}`},
		{name: "no text", block: `{"type":"text"}`},
		{name: "unknown type decodes text, keeps Raw", block: `{"type":"x","text":"t"}`, wantText: "t", wantString: "t", wantBlockRaw: true},
		{name: "text not a string", block: `{"type":"text","text":5}`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(`{"content":[` + tt.block + `]}`)
			var res CallToolResult
			err := json.Unmarshal(data, &res)
			if tt.wantErr {
				if err == nil {
					t.Fatal("no error for a text that is not a string")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c := res.Content[0]
			if c.Text != tt.wantText {
				t.Errorf("Text = %.40q, want %.40q", c.Text, tt.wantText)
			}
			if string(c.TextRaw) != tt.wantRaw {
				t.Errorf("TextRaw = %.40q, want %.40q", c.TextRaw, tt.wantRaw)
			}
			if len(c.TextRaw) > 0 && !within(c.TextRaw, data) {
				t.Error("TextRaw is a copy, want a sub-slice of the result")
			}
			if (c.Raw != nil) != tt.wantBlockRaw {
				t.Errorf("Raw = %s, want it set: %v", c.Raw, tt.wantBlockRaw)
			}
			s, err := c.TextString()
			if err != nil || s != tt.wantString {
				t.Errorf("TextString() = %.40q, %v; want %.40q", s, err, tt.wantString)
			}
			// Encoding gives the text back, large or not.
			out, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			var back struct {
				Type string  `json:"type"`
				Text *string `json:"text"`
			}
			if err := json.Unmarshal(out, &back); err != nil {
				t.Fatal(err)
			}
			if got := deref(back.Text); back.Type != c.Type || got != tt.wantString {
				t.Errorf("MarshalJSON = %.80s, want type %q and text %.40q", out, c.Type, tt.wantString)
			}
		})
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// within reports whether sub's bytes lie inside whole's.
func within(sub, whole []byte) bool {
	s, w := uintptr(unsafe.Pointer(unsafe.SliceData(sub))), uintptr(unsafe.Pointer(unsafe.SliceData(whole)))
	return s >= w && s+uintptr(len(sub)) <= w+uintptr(len(whole))
}
