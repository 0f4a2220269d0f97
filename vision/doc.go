// Package vision finds dice in camera images and reads their top faces with
// OpenCV (through gocv). Images in, dice out: it knows nothing of games.
package vision
