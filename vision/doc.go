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
// Faces are read by rules on the marks a face encloses, checked by a small
// neural network whose weights live in model/face.json, and every candidate
// region is checked against the image itself by the die verifier, a small
// convolutional network in model/crop.json that also reads the faces the
// rules cannot make out and rejects regions that are not dice (both made by
// `liarsd readtrain`, with TrainFaceModel and TrainCropModel).
// docs/vision.md describes the method and quotes the measured accuracy and
// speed; `liarsd readbench` prints them.
package vision
