package vision_test

import (
	"encoding/binary"
	"errors"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"github.com/liarsd/liarsd/vision"
	"github.com/liarsd/liarsd/vision/synth"
	"github.com/liarsd/liarsd/vision/visiontest"
)

// encodedTable renders a small synthetic table and encodes it as ext
// (".jpg", ".png") with gocv's params.
func encodedTable(t testing.TB, ext gocv.FileExt, params ...int) []byte {
	t.Helper()
	img, _, err := synth.Render(synth.Random(21, synth.RandomOptions{Width: 320, Height: 240, Dice: 4, DieSize: 40}))
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	encode := gocv.IMEncode
	if len(params) > 0 { // gocv v0.31.0's IMEncodeWithParams indexes params[0]
		encode = func(ext gocv.FileExt, img gocv.Mat) (*gocv.NativeByteBuffer, error) {
			return gocv.IMEncodeWithParams(ext, img, params)
		}
	}
	buf, err := encode(ext, img)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Close()
	return append([]byte(nil), buf.GetBytes()...)
}

// pngHeader is the start of a PNG claiming w x h 8-bit RGB pixels, and no
// data: a decompression bomb's header.
func pngHeader(w, h uint32) []byte {
	b := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR")
	b = binary.BigEndian.AppendUint32(b, w)
	b = binary.BigEndian.AppendUint32(b, h)
	return append(b, 8, 2, 0, 0, 0, 0, 0, 0, 0)
}

// bmpHeader is the start of a BMP claiming w x h pixels.
func bmpHeader(w, h int32) []byte {
	b := make([]byte, 54)
	b[0], b[1] = 'B', 'M'
	binary.LittleEndian.PutUint32(b[14:], 40)
	binary.LittleEndian.PutUint32(b[18:], uint32(w))
	binary.LittleEndian.PutUint32(b[22:], uint32(h))
	return b
}

// TestDecodeImage decodes whole images of every kind the cameras and
// folders give, and refuses bad ones with a clear error, never a panic:
// garbage, nothing, truncated JPEGs (which OpenCV would fill with grey),
// and images too large to decode.
func TestDecodeImage(t *testing.T) {
	jpg := encodedTable(t, gocv.JPEGFileExt)
	progressive := encodedTable(t, gocv.JPEGFileExt, gocv.IMWriteJpegProgressive, 1)
	restarts := encodedTable(t, gocv.JPEGFileExt, gocv.IMWriteJpegRstInterval, 2)
	png := encodedTable(t, gocv.PNGFileExt)
	img16 := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(20000, 40000, 60000, 0), 64, 64, gocv.MatTypeCV16UC3)
	defer img16.Close()
	bgra := gocv.NewMatWithSizeFromScalar(gocv.NewScalar(10, 20, 30, 128), 64, 64, gocv.MatTypeCV8UC4)
	defer bgra.Close()
	encode := func(m gocv.Mat) []byte {
		buf, err := gocv.IMEncode(gocv.PNGFileExt, m)
		if err != nil {
			t.Fatal(err)
		}
		defer buf.Close()
		return append([]byte(nil), buf.GetBytes()...)
	}
	cat := func(parts ...[]byte) []byte {
		var b []byte
		for _, p := range parts {
			b = append(b, p...)
		}
		return b
	}
	for _, tc := range []struct {
		name string
		data []byte
		want string // a part of the error; "" for none
		cols int    // the decoded image's width, when it decodes
	}{
		{"jpeg", jpg, "", 320},
		{"progressive jpeg", progressive, "", 320},
		{"jpeg with restart markers", restarts, "", 320},
		{"jpeg with data after its end", cat(jpg, []byte("trailer\xff\xd8\xff")), "", 320},
		{"png", png, "", 320},
		{"16-bit png", encode(img16), "", 64},
		{"png with alpha", encode(bgra), "", 64},
		{"empty", nil, "empty file", 0},
		{"garbage", []byte("not an image at all"), "not a readable image", 0},
		{"jpeg start only", []byte{0xFF, 0xD8}, "truncated JPEG", 0},
		{"jpeg cut in its header", jpg[:40], "truncated JPEG", 0},
		{"jpeg cut in half", jpg[:len(jpg)/2], "truncated JPEG", 0},
		{"jpeg without its end marker", jpg[:len(jpg)-2], "truncated JPEG", 0},
		{"progressive jpeg cut after a scan", progressive[:len(progressive)*2/3], "truncated JPEG", 0},
		{"png cut in half", png[:len(png)/2], "not a readable image", 0},
		{"png claiming 100000x100000", pngHeader(100000, 100000), "image too large (100000x100000", 0},
		{"png claiming 9000x8000", pngHeader(9000, 8000), "image too large", 0},
		{"bmp claiming 20000x-20000", bmpHeader(20000, -20000), "image too large (20000x20000", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := vision.DecodeImage(tc.data, "x")
			if err == nil {
				defer m.Close()
			}
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("got %v; want no error", err)
			case tc.want == "":
				if m.Cols() != tc.cols || m.Type() != gocv.MatTypeCV8UC3 {
					t.Errorf("got %dx%d %v; want %d wide, 8-bit BGR", m.Cols(), m.Rows(), m.Type(), tc.cols)
				}
			case err == nil:
				t.Errorf("got a %dx%d image; want an error with %q", m.Cols(), m.Rows(), tc.want)
			case !strings.HasPrefix(err.Error(), "vision: x: ") || !strings.Contains(err.Error(), tc.want):
				t.Errorf("got %q; want a vision error naming x with %q", err, tc.want)
			}
		})
	}
}

// TestLoadImageNotAFile refuses what is no image file before reading it:
// a folder, and a device that never ends.
func TestLoadImageNotAFile(t *testing.T) {
	paths := []string{t.TempDir()}
	if _, err := os.Stat("/dev/zero"); err == nil {
		paths = append(paths, "/dev/zero")
	}
	for _, p := range paths {
		m, err := vision.LoadImage(p)
		if err == nil || !strings.Contains(err.Error(), "not an image file") {
			t.Errorf("LoadImage(%s): got %v; want not an image file", p, err)
		}
		m.Close()
	}
	if _, err := vision.LoadImage(filepath.Join(t.TempDir(), "missing.png")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("LoadImage(missing): got %v; want it to wrap os.ErrNotExist", err)
	}
}

// TestReadBadMats refuses Mats the reader cannot read with a clear
// error.
func TestReadBadMats(t *testing.T) {
	r := visiontest.NewReader(t, vision.Options{})
	for _, tc := range []struct {
		name string
		mat  gocv.Mat
		want string
	}{
		{"empty", gocv.NewMat(), "empty image"},
		{"tiny", gocv.NewMatWithSize(8, 8, gocv.MatTypeCV8UC3), "image too small (8x8)"},
		{"16-bit BGR", gocv.NewMatWithSize(64, 64, gocv.MatTypeCV16UC3), "unsupported image type CV16UC3"},
		{"16-bit gray", gocv.NewMatWithSize(64, 64, gocv.MatTypeCV16UC1), "unsupported image type CV16U"},
		{"float", gocv.NewMatWithSize(64, 64, gocv.MatTypeCV32FC1), "unsupported image type"},
		{"two channels", gocv.NewMatWithSize(64, 64, gocv.MatTypeCV8UC2), "unsupported image type CV8UC2"},
		{"signed bytes", gocv.NewMatWithSize(64, 64, gocv.MatTypeCV8SC3), "unsupported image type 17 (depth 1, 3 channels)"},
	} {
		_, err := r.Read(tc.mat)
		tc.mat.Close()
		if err == nil || !strings.HasPrefix(err.Error(), "vision: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v; want a vision error with %q", tc.name, err, tc.want)
		}
	}
}

// TestReadImageBadInput reads Go images of every kind, 16-bit and with
// alpha too, and refuses nil, empty and unbounded ones with an error
// rather than a panic.
func TestReadImageBadInput(t *testing.T) {
	r := visiontest.NewReader(t, vision.Options{})
	rect := image.Rect(10, 20, 110, 120)
	for _, tc := range []struct {
		name string
		img  image.Image
		want string // "" reads
	}{
		{"RGBA64", image.NewRGBA64(rect), ""},
		{"Gray16", image.NewGray16(rect), ""},
		{"NRGBA", image.NewNRGBA(rect), ""},
		{"Paletted", image.NewPaletted(rect, color.Palette{color.White, color.Black}), ""},
		{"YCbCr", image.NewYCbCr(rect, image.YCbCrSubsampleRatio420), ""},
		{"nil", nil, "nil image"},
		{"empty", image.NewRGBA(image.Rectangle{}), "empty image (0x0)"},
		{"unbounded", image.NewUniform(color.White), "image too large"},
		{"huge", hugeImage{}, "image too large (100000x100000"},
	} {
		dice, err := func() (dice []vision.Die, err error) {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("%s: panic %v", tc.name, p)
				}
			}()
			return r.ReadImage(tc.img)
		}()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: got %v; want no error", tc.name, err)
		case tc.want == "" && len(dice) != 0:
			t.Errorf("%s: got %v on a blank image; want no dice", tc.name, dice)
		case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), "vision: ") || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: got %v; want a vision error with %q", tc.name, err, tc.want)
		}
	}
}

// hugeImage claims 100000x100000 pixels without holding them.
type hugeImage struct{}

func (hugeImage) ColorModel() color.Model { return color.RGBAModel }
func (hugeImage) Bounds() image.Rectangle { return image.Rect(0, 0, 100000, 100000) }
func (hugeImage) At(x, y int) color.Color { return color.White }

// FuzzDecodeImage feeds the reader bytes as a camera or a file might give
// them: whatever they are, DecodeImage answers an error or a Mat, and a
// Mat is read into dice that make sense, never a panic. The seeds are a
// small table as JPEG, PNG and BMP and the headers of the size checks.
func FuzzDecodeImage(f *testing.F) {
	f.Add(encodedTable(f, gocv.JPEGFileExt))
	f.Add(encodedTable(f, gocv.PNGFileExt))
	f.Add(encodedTable(f, gocv.FileExt(".bmp")))
	f.Add(pngHeader(12000, 12000))
	f.Add(bmpHeader(-64, 64))
	f.Add([]byte{0xFF, 0xD8, 0xFF, 0xC0, 0, 11, 8, 0, 64, 0, 64, 1, 1, 0x11, 0})
	r := visiontest.NewReader(f, vision.Options{})
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := vision.DecodeImage(data, "fuzz")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "vision: fuzz: ") {
				t.Fatalf("got %q; want an error naming the image", err)
			}
			return
		}
		defer m.Close()
		dice, err := r.Read(m)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "vision: ") {
				t.Fatalf("got %q; want a vision error", err)
			}
			return
		}
		for _, d := range dice {
			guess := d.Face >= 1 && d.Face <= 6 || d.Face == 0 && d.Uncertain
			if !guess || d.Star && d.Face != 1 || !(d.Confidence >= 0 && d.Confidence <= 1) ||
				!(d.X >= 0 && d.X <= float64(m.Cols())) || !(d.Y >= 0 && d.Y <= float64(m.Rows())) || !(d.Size > 0) {
				t.Fatalf("a %dx%d image read as %+v; want a face 1-6 (0 if uncertain), a star only as 1, a confidence 0-1 and a place in the image", m.Cols(), m.Rows(), d)
			}
		}
	})
}
