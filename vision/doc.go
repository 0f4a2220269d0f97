// Package vision finds dice in camera images and reads their top faces with
// OpenCV (through gocv). Images in, dice out: it knows nothing of games.
//
// A Reader, configured by Options (camera view, optional die size and what
// the dice carry on their 1), returns every die it finds as a Die: the top
// face (1-6, or the wild star), its centre and size in pixels, a confidence,
// and an Uncertain flag for dice it cannot read reliably (cocked, half
// hidden, unreadable). A referee must ask for a look at those rather than
// guess.
//
// Frames come from a Source: a V4L2 camera (OpenV4L2), a GStreamer
// pipeline such as the Raspberry Pi camera's (OpenGStreamer), a still
// image (OpenImage), a folder of images (OpenFolder), or the synthetic
// table of package vision/synth.
//
// Dice are found by the dice finder, a small CenterNet-style network
// (model/finder.onnx) that marks each die's centre and extent (once at the
// calibrated die size, or over an image pyramid when the size is unknown),
// and read by
// the face classifier (model/faces.onnx), which reads a window around each
// die and also says when a window holds no die; both are trained with
// PyTorch by vision/recipe/train.py (make train) and run through OpenCV's
// DNN module. The pip counter, plain image processing that counts the
// marks a face shows, is the second witness: a read it contradicts is
// never confident, and one it cannot make out must clear a higher bar.
// The bars (model/reader.json, Bars) are chosen on photographs the recipe
// held out by `liarsd readtrain`; LoadModels reads another set (a table's
// own retrained networks). docs/vision.md describes the method and quotes
// the measured accuracy and speed; `liarsd readbench` prints them.
package vision
