package demo

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
	"math"
	"time"
)

// Media is generated on request rather than embedded: it keeps the binary
// small and the package free of init-time work.

// gradientPNG returns a size×size PNG whose colour runs from red (left) to
// green (top to bottom) over a constant blue.
func gradientPNG(size int) ([]byte, error) {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	for y := range size {
		for x := range size {
			img.SetNRGBA(x, y, color.NRGBA{
				R: uint8(255 * x / max(size-1, 1)),
				G: uint8(255 * y / max(size-1, 1)),
				B: 160,
				A: 255,
			})
		}
	}
	return encodePNG(img)
}

// logoPNG returns a 32×32 PNG of a ring on a transparent background: the
// demo server's logo.
func logoPNG() ([]byte, error) {
	const size = 32
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	ring := color.NRGBA{R: 0x3b, G: 0x82, B: 0xf6, A: 255}
	for y := range size {
		for x := range size {
			dx, dy := float64(x)-15.5, float64(y)-15.5
			if d := math.Hypot(dx, dy); d >= 9 && d <= 14 {
				img.SetNRGBA(x, y, ring)
			}
		}
	}
	return encodePNG(img)
}

func encodePNG(img image.Image) ([]byte, error) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// toneWAV returns a RIFF/WAVE file holding a sine tone at freq hertz lasting
// d: 16-bit little-endian PCM, mono, 8000 samples per second.
func toneWAV(freq float64, d time.Duration) []byte {
	const (
		sampleRate    = 8000
		bitsPerSample = 16
		channels      = 1
		blockAlign    = channels * bitsPerSample / 8
	)
	samples := int(d.Seconds() * sampleRate)
	dataSize := samples * blockAlign

	le := binary.LittleEndian
	b := make([]byte, 0, 44+dataSize)
	b = append(b, "RIFF"...)
	b = le.AppendUint32(b, uint32(36+dataSize))
	b = append(b, "WAVEfmt "...)
	b = le.AppendUint32(b, 16) // size of the fmt chunk
	b = le.AppendUint16(b, 1)  // PCM
	b = le.AppendUint16(b, channels)
	b = le.AppendUint32(b, sampleRate)
	b = le.AppendUint32(b, sampleRate*blockAlign) // byte rate
	b = le.AppendUint16(b, blockAlign)
	b = le.AppendUint16(b, bitsPerSample)
	b = append(b, "data"...)
	b = le.AppendUint32(b, uint32(dataSize))
	for i := range samples {
		v := 0.5 * math.Sin(2*math.Pi*freq*float64(i)/sampleRate)
		b = le.AppendUint16(b, uint16(int16(v*math.MaxInt16)))
	}
	return b
}
