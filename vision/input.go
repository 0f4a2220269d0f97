package vision

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"os"

	"gocv.io/x/gocv"
)

// maxImagePixels bounds the images the reader decodes or converts: 2^26
// pixels (67 megapixels, a 64-megapixel camera's stills fit). The reader
// works on at most maxWorkSide pixels a side whatever it is given, and a
// larger image costs its decoded size several times over in memory (about
// a gigabyte at 144 megapixels) before it is scaled down: a file claiming
// more is refused before it is decoded, as a clear error instead of a
// Raspberry Pi running out of memory.
const maxImagePixels = 1 << 26

// errTruncated is the error of a JPEG whose data ends before its image.
var errTruncated = errors.New("truncated JPEG: the data ends before the image does")

// checkEncoded checks an encoded image before OpenCV decodes it: its size,
// where its header says it (PNG, JPEG, BMP), against maxImagePixels, and
// that a JPEG is whole. libjpeg decodes a truncated JPEG without an error,
// filling the part that is missing with grey: the dice there would go
// unseen.
func checkEncoded(buf []byte) error {
	w, h, known := 0, 0, false
	switch {
	case len(buf) >= 24 && bytes.HasPrefix(buf, []byte("\x89PNG\r\n\x1a\n")) && string(buf[12:16]) == "IHDR":
		w, h = int(binary.BigEndian.Uint32(buf[16:20])), int(binary.BigEndian.Uint32(buf[20:24]))
		known = true
	case len(buf) >= 2 && buf[0] == 0xFF && buf[1] == 0xD8:
		var err error
		if w, h, err = jpegFrame(buf); err != nil {
			return err
		}
		known = w > 0 && h > 0
	case len(buf) >= 26 && buf[0] == 'B' && buf[1] == 'M':
		if binary.LittleEndian.Uint32(buf[14:18]) == 12 { // OS/2's header: 16-bit sides
			w, h = int(binary.LittleEndian.Uint16(buf[18:20])), int(binary.LittleEndian.Uint16(buf[20:22]))
		} else {
			w, h = int(int32(binary.LittleEndian.Uint32(buf[18:22]))), int(int32(binary.LittleEndian.Uint32(buf[22:26])))
		}
		w, h, known = abs(w), abs(h), true
	}
	if known {
		return checkPixels(w, h)
	}
	return nil
}

// checkPixels refuses an image of more than maxImagePixels.
func checkPixels(w, h int) error {
	if int64(w)*int64(h) > maxImagePixels {
		return fmt.Errorf("image too large (%dx%d, over %d megapixels)", w, h, maxImagePixels>>20)
	}
	return nil
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// jpegFrame walks a JPEG's markers to its end-of-image marker and returns
// its frame's size (0x0 when it has no frame header it knows). It fails
// only with errTruncated, when the data ends first; bytes it does not
// expect between markers it skips, as libjpeg does.
func jpegFrame(buf []byte) (w, h int, err error) {
	i := 2 // past the start-of-image marker
	for {
		// The next marker: 0xFF (fill bytes may repeat it), then its code.
		j := bytes.IndexByte(buf[i:], 0xFF)
		if j < 0 {
			return 0, 0, errTruncated
		}
		i += j
		for i < len(buf) && buf[i] == 0xFF {
			i++
		}
		if i >= len(buf) {
			return 0, 0, errTruncated
		}
		code := buf[i]
		i++
		switch {
		case code == 0xD9: // end of image
			return w, h, nil
		case code == 0x00 || code == 0x01 || code == 0xD8 || (code >= 0xD0 && code <= 0xD7):
			continue // a stray stuffed byte, or a marker without a segment
		}
		if i+2 > len(buf) {
			return 0, 0, errTruncated
		}
		n := int(binary.BigEndian.Uint16(buf[i:]))
		if n < 2 || i+n > len(buf) {
			return 0, 0, errTruncated
		}
		isSOF := code >= 0xC0 && code <= 0xCF && code != 0xC4 && code != 0xC8 && code != 0xCC
		if isSOF && w == 0 && n >= 7 {
			h, w = int(binary.BigEndian.Uint16(buf[i+3:])), int(binary.BigEndian.Uint16(buf[i+5:]))
		}
		i += n
		if code != 0xDA {
			continue
		}
		// A scan's entropy-coded data runs to the next marker: a 0xFF not
		// followed by a stuffed 0x00 or a restart marker.
		for {
			j := bytes.IndexByte(buf[i:], 0xFF)
			if j < 0 || i+j+1 >= len(buf) {
				return 0, 0, errTruncated
			}
			i += j
			if c := buf[i+1]; c != 0x00 && c != 0xFF && (c < 0xD0 || c > 0xD7) {
				break
			}
			i++
		}
	}
}

// checkGoImage says why a Go image cannot be read, if it cannot: it has
// no pixels, or so many that converting it would exhaust the memory (an
// image.Uniform's bounds are infinite, to gocv's conversion a panic).
func checkGoImage(img image.Image) error {
	if img == nil {
		return errors.New("vision: nil image")
	}
	b := img.Bounds()
	if b.Empty() {
		return fmt.Errorf("vision: empty image (%dx%d)", max(b.Dx(), 0), max(b.Dy(), 0))
	}
	if err := checkPixels(b.Dx(), b.Dy()); err != nil {
		return fmt.Errorf("vision: %w", err)
	}
	return nil
}

// checkImage says why the reader cannot read img, if it cannot.
func checkImage(img gocv.Mat) error {
	if img.Empty() {
		return errors.New("vision: empty image")
	}
	if t := img.Type(); t != gocv.MatTypeCV8UC3 && t != gocv.MatTypeCV8UC1 && t != gocv.MatTypeCV8UC4 {
		name := t.String()
		if name == "" {
			// gocv names only some types (not CV_8S, say).
			name = fmt.Sprintf("%d (depth %d, %d channels)", t, t&7, img.Channels())
		}
		return fmt.Errorf("vision: unsupported image type %s (want 8-bit gray, BGR or BGRA)", name)
	}
	if img.Cols() < 32 || img.Rows() < 32 {
		return fmt.Errorf("vision: image too small (%dx%d)", img.Cols(), img.Rows())
	}
	return nil
}

// maxWorkSide bounds the longer side of the image the reader works on;
// larger images are scaled down first, which costs nothing in accuracy as
// long as dice stay above ~20 px.
const maxWorkSide = 1600

// workImage converts img to BGR at the size the reader works on, and
// says its scale from img. The caller closes the result.
func workImage(img gocv.Mat) (gocv.Mat, float64) {
	bgr := gocv.NewMat()
	switch img.Type() {
	case gocv.MatTypeCV8UC1:
		gocv.CvtColor(img, &bgr, gocv.ColorGrayToBGR)
	case gocv.MatTypeCV8UC4:
		gocv.CvtColor(img, &bgr, gocv.ColorBGRAToBGR)
	default:
		img.CopyTo(&bgr)
	}
	scale := 1.0
	if s := max(bgr.Cols(), bgr.Rows()); s > maxWorkSide {
		scale = float64(maxWorkSide) / float64(s)
		small := gocv.NewMat()
		gocv.Resize(bgr, &small, image.Point{}, scale, scale, gocv.InterpolationArea)
		bgr.Close()
		bgr = small
	}
	return bgr, scale
}

// ReadImage reads the dice in a Go image.
func (r *Reader) ReadImage(img image.Image) ([]Die, error) {
	if err := checkGoImage(img); err != nil {
		return nil, err
	}
	m, err := gocv.ImageToMatRGB(img)
	if err != nil {
		return nil, fmt.Errorf("vision: converting image: %w", err)
	}
	defer m.Close()
	// ImageToMatRGB fills the Mat in BGR order despite its name.
	return r.Read(m)
}

// ReadFile reads the dice in an image file (JPEG, PNG and whatever else
// OpenCV decodes).
func (r *Reader) ReadFile(path string) ([]Die, error) {
	m, err := LoadImage(path)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	return r.Read(m)
}

// LoadImage reads an image file into a BGR Mat, with a clear error for a
// missing, undecodable, truncated or oversized file (DecodeImage). The
// caller closes the Mat.
func LoadImage(path string) (gocv.Mat, error) {
	st, err := os.Stat(path)
	if err != nil {
		return gocv.Mat{}, fmt.Errorf("vision: %w", err)
	}
	if !st.Mode().IsRegular() {
		// A folder, a device (/dev/zero never ends) or a pipe.
		return gocv.Mat{}, fmt.Errorf("vision: %s: not an image file", path)
	}
	buf, err := os.ReadFile(path)
	if err != nil {
		return gocv.Mat{}, fmt.Errorf("vision: %w", err)
	}
	return DecodeImage(buf, path)
}

// DecodeImage decodes an encoded image (JPEG, PNG...) into a BGR Mat; name
// only labels errors. 16-bit images come out 8-bit, and an alpha channel
// is dropped. A truncated JPEG is an error (OpenCV would fill its missing
// part with grey), and so is an image of more than 2^26 pixels (67
// megapixels) whose header says its size (PNG, JPEG, BMP). The caller
// closes the Mat.
func DecodeImage(buf []byte, name string) (gocv.Mat, error) {
	if len(buf) == 0 {
		return gocv.Mat{}, fmt.Errorf("vision: %s: empty file", name)
	}
	if err := checkEncoded(buf); err != nil {
		return gocv.Mat{}, fmt.Errorf("vision: %s: %w", name, err)
	}
	m, err := gocv.IMDecode(buf, gocv.IMReadColor)
	if err != nil {
		m.Close()
		return gocv.Mat{}, fmt.Errorf("vision: %s: %w", name, err)
	}
	if m.Empty() {
		m.Close()
		return gocv.Mat{}, fmt.Errorf("vision: %s: not a readable image (not an image, corrupt, or too large for OpenCV)", name)
	}
	return m, nil
}
