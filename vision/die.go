package vision

import (
	"fmt"
	"strings"
)

// Die is one die found in an image, with the face it shows on top.
type Die struct {
	// Face is the top face, 1 to 6. It is a best guess when Uncertain is
	// set, and 0 when the reader has no guess at all.
	Face int `json:"face"`
	// Star reports that the top face is the wild star (Face is then 1).
	Star bool `json:"star"`
	// X and Y are the die's centre in the image's pixels.
	X float64 `json:"x"`
	Y float64 `json:"y"`
	// Size is the die's extent in pixels: the side of its box as the
	// camera sees it (a die turned 45 degrees is wider than its side).
	Size float64 `json:"size"`
	// Confidence is how sure the reader is of Face, from 0 to 1.
	Confidence float64 `json:"confidence"`
	// Uncertain reports that the reader could not tell the face reliably
	// (a cocked die, a die half hidden, an unreadable face). A referee must
	// ask for a look instead of adjudicating on it.
	Uncertain bool `json:"uncertain"`
	// Reason says, for an uncertain die, why.
	Reason string `json:"reason,omitempty"`
	// Net and Pips are the two witnesses' opinions: the face network's
	// and the pip counter's (nil when the counter could not make the face
	// out). A die is confident only when they agree.
	Net  *Opinion `json:"net,omitempty"`
	Pips *Opinion `json:"pips,omitempty"`
	// Likely lists, for an uncertain die, the faces it may show,
	// likeliest first: each face the face network gives at least the
	// reader's Possible bar, and the pip counter's; every face when the
	// die cannot be read at all (cocked, half hidden, perhaps no die). A
	// referee may settle a call on it when no face of the list could
	// change the verdict. Empty for a confident die.
	Likely []Opinion `json:"likely,omitempty"`
}

// Opinion is one witness's read of a die.
type Opinion struct {
	Face int  `json:"face"`
	Star bool `json:"star"`
	// Probability is the network's for its face; the pip counter gives
	// none.
	Probability float64 `json:"probability,omitempty"`
}

// String formats the die for logs and test messages.
func (d Die) String() string {
	face := fmt.Sprint(d.Face)
	if d.Star {
		face = "star"
	}
	u := ""
	if d.Uncertain {
		u = " uncertain"
	}
	return fmt.Sprintf("%s@(%.0f,%.0f) size %.0f conf %.2f%s", face, d.X, d.Y, d.Size, d.Confidence, u)
}

// View says where the camera looks from.
type View int

const (
	// ViewTop is a camera looking down on the dice: it sees the top faces.
	ViewTop View = iota
	// ViewBottom is a camera looking up through a glass board at the dice's
	// bottoms: the reader reports the opposite face (7 minus the bottom; the
	// star's opposite is 6).
	ViewBottom
)

// String returns "top" or "bottom".
func (v View) String() string {
	if v == ViewBottom {
		return "bottom"
	}
	return "top"
}

// ParseView parses "top" or "bottom".
func ParseView(s string) (View, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "top", "":
		return ViewTop, nil
	case "bottom":
		return ViewBottom, nil
	}
	return ViewTop, fmt.Errorf("vision: unknown view %q (want top or bottom)", s)
}

// Options configure a Reader. The zero value reads top faces with no
// calibration: the reader finds the dice and their size on its own.
type Options struct {
	// View is where the camera looks from.
	View View
	// DieSize is the expected extent of a die in pixels (the side of its
	// box as the camera sees it, Die.Size), from calibration. Zero means
	// unknown: the reader estimates it from the image.
	DieSize float64
	// StarDice says the dice carry the star on their 1 face: a single
	// central mark is then the star whatever its shape, and through a
	// bottom view a 6 below is reported as the star on top.
	StarDice bool
	// PlainDice says the dice carry a plain pip on their 1 face: a face
	// that looks like a star is then flagged Uncertain (a marbled swirl
	// running into a pip, say). StarDice and PlainDice both unset reads
	// either.
	PlainDice bool
	// MinConfidence is the confidence below which a die is flagged
	// Uncertain. Zero means DefaultMinConfidence.
	MinConfidence float64
	// Models replaces the embedded networks and bars (see LoadModels);
	// nil keeps them.
	Models *Models `json:"-"`
	// Background is the empty table from the same camera (calibration's
	// background step): a place the finder marks where the frame is the
	// empty board (its printing, a seam) is not a die. Nil checks nothing.
	Background *Background `json:"-"`
	// Unknown reports, as uncertain dice with the Reason ReasonUnknown, the
	// places the finder is sure of that the classifier calls no die: a
	// house artwork the networks never saw is one. A table's calibration
	// sets it, for its face templates to read them (or drop them).
	Unknown bool `json:"-"`
}

// DefaultMinConfidence is the confidence below which dice are flagged
// Uncertain when Options.MinConfidence is zero.
const DefaultMinConfidence = 0.6
