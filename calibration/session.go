package calibration

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"gocv.io/x/gocv"

	"github.com/liarsd/liarsd/vision"
)

// Card describes the chessboard card laid on the board.
type Card struct {
	Cols, Rows int     // inner corners
	SquareMM   float64 // side of a square
}

// DefaultCard is the card docs/calibration.md asks for: 9x6 inner corners
// (a 10x7 board) of 20 mm squares, printed on A4.
var DefaultCard = Card{Cols: 9, Rows: 6, SquareMM: 20}

// ParseCard reads a card as `liarsd calibrate --card` names it:
// COLSxROWS@MM, inner corners and the square's side ("9x6@20").
func ParseCard(s string) (Card, error) {
	var c Card
	var rest string
	if n, _ := fmt.Sscanf(s, "%dx%d@%g%s", &c.Cols, &c.Rows, &c.SquareMM, &rest); n != 3 {
		return Card{}, fmt.Errorf("calibration: card %q is not COLSxROWS@MM (inner corners, square mm), like %dx%d@%g", s, DefaultCard.Cols, DefaultCard.Rows, DefaultCard.SquareMM)
	}
	return c, c.check()
}

// check refuses a card OpenCV cannot find: its corner finder needs more
// than two inner corners each way.
func (c Card) check() error {
	if c.Cols < 3 || c.Rows < 3 || c.Cols > 100 || c.Rows > 100 {
		return fmt.Errorf("calibration: a card of %dx%d inner corners cannot be found; it needs 3 to 100 each way", c.Cols, c.Rows)
	}
	if !(c.SquareMM > 0 && c.SquareMM < 1000) {
		return fmt.Errorf("calibration: a card's squares of %g mm: they need a size above 0 and below 1000 mm", c.SquareMM)
	}
	return nil
}

// Session runs calibration steps on one table's file. Each step takes its
// images from Images when given (non-interactive, for scripts and tests)
// or from Source after asking the installer; it changes File only when it
// succeeds, and the caller saves File then.
type Session struct {
	File *File
	// Dir is the folder of the calibration file; images the file names
	// (background, star template) are written there.
	Dir string
	// Images are saved images, used in order instead of the camera.
	Images []string
	// Source is the camera, asked when Images run out.
	Source vision.Source
	// In and Out talk with the installer; In nil means nobody is there.
	In  *bufio.Reader
	Out io.Writer
	Log *slog.Logger
}

// say tells the installer what happens.
func (s *Session) say(format string, args ...any) {
	if s.Out != nil {
		fmt.Fprintf(s.Out, format+"\n", args...)
	}
}

// ask puts a question and returns the answer, trimmed.
func (s *Session) ask(question string) (string, error) {
	if s.In == nil {
		return "", errors.New("calibration: this step needs an installer at the terminal, or --image")
	}
	fmt.Fprint(s.Out, question+" ")
	line, err := s.In.ReadString('\n')
	if err != nil && line == "" {
		return "", fmt.Errorf("calibration: no answer: %w", err)
	}
	return strings.TrimSpace(line), nil
}

// capture returns the next image: the next of Images, or a frame from the
// camera once the installer says the table is ready.
func (s *Session) capture(instruction string) (gocv.Mat, error) {
	if len(s.Images) > 0 {
		path := s.Images[0]
		s.Images = s.Images[1:]
		img := gocv.IMRead(path, gocv.IMReadColor)
		if img.Empty() {
			img.Close()
			return gocv.Mat{}, fmt.Errorf("calibration: cannot read image %s", path)
		}
		s.say("  using %s", path)
		return img, nil
	}
	if s.Source == nil {
		return gocv.Mat{}, errors.New("calibration: no camera and no --image for this step")
	}
	if _, err := s.ask(instruction + " Press Enter when ready."); err != nil {
		return gocv.Mat{}, err
	}
	img, err := s.Source.Capture()
	if err != nil {
		return gocv.Mat{}, fmt.Errorf("calibration: %w", err)
	}
	return img, nil
}

// Board measures the board's geometry from the card laid on it. When the
// lens was measured, the homography is measured on corrected points.
func (s *Session) Board(card Card) error {
	if err := card.check(); err != nil {
		return err
	}
	s.say("Board: lay the %dx%d-square chessboard card flat in the middle of the board, its long side toward the first seat.", card.Cols+1, card.Rows+1)
	img, err := s.capture("Card on the board?")
	if err != nil {
		return err
	}
	defer img.Close()
	var lens *Lens
	if s.File.Board != nil {
		lens = s.File.Board.Lens
	}
	b, err := MeasureBoard(img, card.Cols, card.Rows, card.SquareMM, lens)
	if err != nil {
		return err
	}
	s.File.Board = b
	s.say("  board found: the card's corners fit within %.2f mm", b.ErrorMM)
	return nil
}

// Lens measures the lens's distortion from several views of the card.
func (s *Session) Lens(card Card, views int) error {
	if err := card.check(); err != nil {
		return err
	}
	if views < 3 {
		views = 3
	}
	s.say("Lens: show the card to the camera %d times, each time tilted another way and filling much of the view.", views)
	var imgs []gocv.Mat
	defer func() {
		for _, m := range imgs {
			m.Close()
		}
	}()
	for i := range views {
		img, err := s.capture(fmt.Sprintf("View %d of %d?", i+1, views))
		if err != nil {
			return err
		}
		imgs = append(imgs, img)
	}
	l, err := MeasureLens(imgs, card.Cols, card.Rows, card.SquareMM)
	if err != nil {
		return err
	}
	if s.File.Board == nil {
		s.File.Board = &Board{Cols: card.Cols, Rows: card.Rows, SquareMM: card.SquareMM, Homography: [9]float64{1, 0, 0, 0, 1, 0, 0, 0, 1}}
	}
	// The homography, if any, was fitted to uncorrected points: until the
	// board step fits it again on corrected ones, it places nothing.
	s.File.Board.Lens, s.File.Board.Stale = l, true
	s.say("  lens measured: %.2f px reprojection error; now run the board step (board positions wait for it)", l.ErrorPx)
	return nil
}

// Background keeps an image of the empty board under this table's light.
func (s *Session) Background() error {
	s.say("Background: clear the board of dice, cups and hands.")
	img, err := s.capture("Board empty?")
	if err != nil {
		return err
	}
	defer img.Close()
	name := "background.png"
	if err := writeImage(filepath.Join(s.Dir, name), img); err != nil {
		return err
	}
	s.File.Background = name
	if s.File.dir == "" {
		s.File.dir = s.Dir
	}
	return nil
}

// writeImage encodes img as PNG and replaces path with it atomically.
func writeImage(path string, img gocv.Mat) error {
	buf, err := gocv.IMEncode(gocv.PNGFileExt, img)
	if err != nil {
		return fmt.Errorf("calibration: encoding %s: %w", path, err)
	}
	defer buf.Close()
	return writeFile(path, buf.GetBytes())
}

// Layout says how seat zones are drawn.
type Layout struct {
	// Kind is "round", "rect" or "taught".
	Kind string
	// Round and rect: the table's centre on the board (mm); the board's
	// origin is the card's first inner corner.
	Centre Point
	// Round: the table's radius (mm).
	Radius float64
	// Rect: the table's size (mm).
	Width, Height float64
}

// Seats draws the seat zones: from the table's shape, or taught by dice
// laid in front of each seat in turn (that needs the board step first).
func (s *Session) Seats(names []string, layout Layout) error {
	var zones Zones
	var err error
	switch layout.Kind {
	case "round":
		zones, err = RoundTable(names, layout.Centre, layout.Radius)
	case "rect":
		zones, err = RectTable(names, layout.Centre, layout.Width, layout.Height)
	case "taught":
		zones, err = s.teachSeats(names)
	default:
		return fmt.Errorf("calibration: unknown seat layout %q (round, rect or taught)", layout.Kind)
	}
	if err != nil {
		return err
	}
	s.File.Seats = zones
	for _, z := range zones {
		s.say("  seat %-12s in front at (%.0f, %.0f) mm", z.Name, z.Centre.X, z.Centre.Y)
	}
	return nil
}

func (s *Session) teachSeats(names []string) (Zones, error) {
	if s.File.Board == nil || s.File.Board.Stale {
		return nil, errors.New("calibration: teaching seats needs the board's geometry: run the board step first")
	}
	reader, err := vision.NewReader(s.File.VisionOptions())
	if err != nil {
		return nil, fmt.Errorf("calibration: %w", err)
	}
	defer reader.Close()
	samples := map[string][]Point{}
	for _, name := range names {
		img, err := s.capture(fmt.Sprintf("Lay two or three dice in front of %s, and no others.", name))
		if err != nil {
			return nil, err
		}
		dice, err := reader.Read(img)
		img.Close()
		if err != nil {
			return nil, fmt.Errorf("calibration: reading the dice in front of %s: %w", name, err)
		}
		if len(dice) == 0 {
			return nil, fmt.Errorf("calibration: no dice found in front of %s", name)
		}
		for _, d := range dice {
			x, y := s.File.Board.ToBoard(d.X, d.Y)
			samples[name] = append(samples[name], Point{x, y})
		}
		s.say("  %s: %d dice", name, len(dice))
	}
	return Taught(names, samples)
}

// Camera locks the camera's exposure, white balance and focus.
func (s *Session) Camera(c Controller) error {
	want := Camera{}
	if s.File.Camera != nil {
		want = *s.File.Camera
		want.Exposure, want.WhiteBalance, want.Focus = nil, nil, nil
	}
	s.say("Camera: light the table as it will be during play; the camera's automatic settings are locked where they settle.")
	if _, err := s.ask("Lights as for play? Press Enter."); err != nil && s.In != nil {
		return err
	}
	got := LockCamera(c, want)
	s.File.Camera = &got
	for _, k := range []struct {
		name, format string
		v            *float64
	}{{"exposure", "%.1f", got.Exposure}, {"white balance", "%.0f", got.WhiteBalance}, {"focus", "%.1f", got.Focus}} {
		if k.v == nil {
			s.say("  %s: the camera does not allow it to be set; left as the camera has it", k.name)
			continue
		}
		s.say("  %s locked at "+k.format, k.name, *k.v)
	}
	return nil
}

// VisionOptions are the reader's options for this table: what the
// calibration knows of its dice and camera.
func (f *File) VisionOptions() vision.Options {
	var o vision.Options
	if f.Camera != nil && f.Camera.View != "" {
		o.View, _ = vision.ParseView(f.Camera.View)
	}
	if f.Dice != nil {
		o.DieSize, o.MinConfidence = f.Dice.SizePx, f.Dice.MinConfidence
	}
	return o
}

// SeatOf returns the seat a die seen at image point (x, y) belongs to, by
// the board's geometry and the seat zones. ok is false when the file has
// no board (or one the board step must measure again) or no seats.
func (f *File) SeatOf(x, y float64) (seat string, inZone, ok bool) {
	if f.Board == nil || f.Board.Stale || len(f.Seats) == 0 {
		return "", false, false
	}
	bx, by := f.Board.ToBoard(x, y)
	return Zones(f.Seats).Assign(Point{bx, by})
}

// LoadOrNew reads the calibration file at path, or starts a new one when
// there is none yet.
func LoadOrNew(path string) (*File, error) {
	f, err := Load(path)
	if errors.Is(err, os.ErrNotExist) {
		return &File{Version: Version, dir: filepath.Dir(path)}, nil
	}
	return f, err
}
