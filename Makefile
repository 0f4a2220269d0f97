# liarsd: `make demo` and `make test` are the two commands a newcomer needs.
# Both install what a fresh Debian / Raspberry Pi OS machine lacks (through apt),
# then build and run.

SHELL   := /bin/bash
# Go 1.24 or newer builds liarsd (go.mod's go line). Raspberry Pi OS trixie's
# golang-go is 1.24; bookworm's is 1.19, too old, so a missing or older Go is
# fetched as the golang.org/toolchain module from the Go module proxy (as the
# go command itself switches toolchains) into GOROOT_DIR.
GO_MIN     := 1.24.0
GOROOT_DIR ?= /usr/local/go
export PATH := $(GOROOT_DIR)/bin:$(PATH)
GO      ?= go
SUDO    := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
BIN     := bin/liarsd
# gocv v0.31.0 builds against OpenCV 4.6 (bookworm) and 4.10 (trixie); see
# docs/platform.md. Extra tags, if ever needed, go in TAGS so that build,
# vet, test, bench and fuzz all see them.
TAGS    ?=
# TAGS may be written with commas (as docs/platform.md does) or spaces; the go
# command reads a list with a space in it as space-separated only, so the
# list is passed on with commas.
comma   := ,
space   := $() $()
tagsep   = $(subst $(space),$(comma),$(strip $(subst $(comma),$(space),$(1))))
# OpenCV: only the modules liarsd calls are linked, not pkg-config's list
# of all of them (docs/platform.md, Build tags and linking). gocv's
# customenv tag takes its flags from the CGO_* variables below, exported to
# every go command here; each function in its own section and --gc-sections
# drop gocv's wrappers liarsd never calls (highgui, objdetect, video, photo)
# and with them those libraries. A cross-build sets PKG_CONFIG (and CC,
# CXX) for its sysroot.
ALLTAGS := customenv $(TAGS)
GOTAGS  := -tags '$(call tagsep,$(ALLTAGS))'
PKG_CONFIG     ?= pkg-config
OPENCV_MODULES := dnn calib3d features2d imgcodecs videoio imgproc core
export CGO_CPPFLAGS = $(shell $(PKG_CONFIG) --cflags opencv4 2>/dev/null)
export CGO_CFLAGS   = -O2 -g -ffunction-sections -fdata-sections
export CGO_CXXFLAGS = --std=c++11 -O2 -g -ffunction-sections -fdata-sections
export CGO_LDFLAGS  = -Wl,--gc-sections -Wl,--as-needed $(shell $(PKG_CONFIG) --libs-only-L opencv4 2>/dev/null) \
	$(addprefix -lopencv_,$(OPENCV_MODULES))
TESTTIMEOUT ?= 15m
# VERSION is liarsd's one version: git describe of the last v* tag (v1.2.0;
# v1.2.0-3-g0123456789ab three commits later; -dirty with uncommitted
# changes), or before the first tag v0.0.0-N-gREV with N the commit count,
# so that versions still sort. liarsd version, the build_info metric, Home
# Assistant's device and the Debian packages (DEB_VERSION, 1.2.0+3.g0123456789ab)
# all show it. VERSION=v1.2.3 make ... overrides it (a source tarball).
ifeq ($(origin VERSION),undefined)
VERSION := $(shell git describe --tags --match 'v[0-9]*' --abbrev=12 --dirty 2>/dev/null || \
	{ n=$$(git rev-list --count HEAD 2>/dev/null) && r=$$(git rev-parse --short=12 HEAD) && \
	  echo "v0.0.0-$$n-g$$r$$(git diff --quiet HEAD -- 2>/dev/null || echo -dirty)"; } || echo v0.0.0)
endif
DEB_VERSION := $(shell echo '$(VERSION)' | sed -e 's/^v//' -e 's/-/+/' -e 's/-/./g')
# What liarsd version and the build_info metric say: VERSION, the VCS
# revision the Go toolchain stamps (-buildvcs=auto, whatever GOFLAGS says)
# and the build's date; the Go and OpenCV versions come from the binary itself.
BUILDINFO := -buildvcs=auto -ldflags '-X github.com/liarsd/liarsd/referee/buildinfo.date=$(shell date -u +%Y-%m-%dT%H:%M:%SZ) -X github.com/liarsd/liarsd/referee/buildinfo.version=$(VERSION)'

# System packages: what building needs (ca-certificates for the module
# proxy), and what the tests start themselves.
# Chromium is Debian's and Raspberry Pi OS trixie's chromium, or Raspberry
# Pi OS bookworm's chromium-browser (the browser tests find either): see
# test-deps.
BUILD_PKGS := pkg-config g++ libopencv-dev ca-certificates
TEST_PKGS  := mosquitto
CHROMIUM_PKGS := chromium chromium-browser

.PHONY: all build test soak demo vet bench bench-venue train train-check train-deps fuzz deps go-toolchain test-deps clean install

all: build

# install_missing installs the named Debian packages that are not installed yet.
define install_missing
	@missing=""; for p in $(1); do \
		dpkg-query -W -f='$${Status}' "$$p" 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "make: installing$$missing (apt)"; \
		$(SUDO) apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi
endef

deps: go-toolchain
	$(call install_missing,$(BUILD_PKGS))

# go-toolchain makes sure Go $(GO_MIN) or newer is on the PATH.
go-toolchain:
	@have=$$($(GO) env GOVERSION 2>/dev/null); \
	if [ -n "$$have" ] && printf 'go%s\n%s\n' "$(GO_MIN)" "$$have" | sort -V -C; then exit 0; fi; \
	if ! command -v $(GO) >/dev/null; then \
		echo "make: installing golang-go (apt)"; \
		$(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq golang-go ca-certificates; \
		have=$$($(GO) env GOVERSION 2>/dev/null); \
		if [ -n "$$have" ] && printf 'go%s\n%s\n' "$(GO_MIN)" "$$have" | sort -V -C; then exit 0; fi; \
	fi; \
	arch=$$($(GO) env GOARCH); [ "$$arch" = arm ] && arch=armv6l; \
	mod=golang.org/toolchain@v0.0.1-go$(GO_MIN).linux-$$arch; \
	echo "make: $${have:-no Go} is older than go$(GO_MIN): fetching $$mod into $(GOROOT_DIR)"; \
	tmp=$$(mktemp -d) && cd "$$tmp" && $(GO) mod init bootstrap >/dev/null 2>&1 && \
	GOFLAGS=-modcacherw GOMODCACHE="$$tmp/mod" GOTOOLCHAIN=local $(GO) mod download "$$mod" && \
	chmod +x "$$tmp/mod/$$mod/bin/"* "$$tmp/mod/$$mod/pkg/tool/"*/* && \
	$(SUDO) rm -rf "$(GOROOT_DIR)" && $(SUDO) cp -a "$$tmp/mod/$$mod" "$(GOROOT_DIR)" && \
	cd / && rm -rf "$$tmp" && $(GOROOT_DIR)/bin/go version

# test-deps adds what the tests start: Mosquitto, and a Chromium unless one
# of CHROMIUM_PKGS is installed already, the first of them that apt offers.
test-deps: deps
	$(call install_missing,$(TEST_PKGS))
	@for p in $(CHROMIUM_PKGS); do \
		dpkg-query -W -f='$${Status}' "$$p" 2>/dev/null | grep -q "ok installed" && exit 0; \
	done; \
	$(SUDO) apt-get update -qq || exit 1; \
	for p in $(CHROMIUM_PKGS); do \
		if LC_ALL=C apt-cache policy "$$p" 2>/dev/null | grep -q 'Candidate: [0-9]'; then \
			echo "make: installing $$p (apt)"; \
			exec $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$$p"; \
		fi; \
	done; \
	echo "make: apt offers none of $(CHROMIUM_PKGS) for the browser tests" >&2; exit 1

# gocv_hint says so when gocv is not in Go's build cache: compiling its
# OpenCV bindings takes minutes with nothing on screen.
gocv_hint = @if $(GO) build $(GOTAGS) -n ./cmd/liarsd 2>&1 | grep -q '^\# gocv.io/x/gocv$$'; then \
	echo "make: the first build compiles gocv's OpenCV bindings: several minutes (8 or more on a Raspberry Pi) with no output; later builds take seconds"; fi

# build links bin/liarsd only when something it is built from changed:
# its Go files, go.mod and go.sum, the files it embeds (the pages, the
# reader's networks, the solved games), or its VERSION (a new tag, a tree
# that became dirty). Go's own cache would compile nothing, but the build
# date in the link flags made every make build link again (5 s).
BUILD_INPUTS := $(shell git ls-files --cached --others --exclude-standard -- '*.go' go.mod go.sum \
	'referee/scoreboard/assets/*' 'vision/model/*' 'engine/computer/*.gz' 2>/dev/null)
build: deps $(BIN)

$(BIN): $(BUILD_INPUTS) bin/.version
	$(gocv_hint)
	$(GO) build $(GOTAGS) $(BUILDINFO) -o $(BIN) ./cmd/liarsd

# bin/.version holds the VERSION the binary was built with, and changes
# only with it.
.PHONY: FORCE
bin/.version: FORCE
	@mkdir -p bin; echo '$(VERSION) $(TAGS)' | cmp -s - $@ || echo '$(VERSION) $(TAGS)' > $@

vet: deps
	$(GO) vet $(GOTAGS) ./...

test: test-deps
	$(gocv_hint)
	$(GO) vet $(GOTAGS) ./...
	$(GO) test $(GOTAGS) -timeout $(TESTTIMEOUT) ./...
	# vision: no OpenCV Mat outlives 1,000 reads (gocv counts them with matprofile).
	@if $(GO) test -tags '$(call tagsep,$(ALLTAGS) matprofile)' -n -run Leak ./vision/... 2>&1 | grep -q '^\# gocv.io/x/gocv$$'; then \
		echo "make: the matprofile tag builds gocv's bindings once more, with a count of OpenCV Mats: about 2.5 minutes with no output, the first time only (Go's build cache keeps it)"; fi
	$(GO) test -tags '$(call tagsep,$(ALLTAGS) matprofile)' -run Leak ./vision/...
		# The arm64 build under qemu, and the package installed in a clean root:
	# each only where its tools are here already (docs/install.md).
	@$(MAKE) --no-print-directory test-arm64
	@if command -v mmdebstrap >/dev/null && [ "$$(id -u)" = 0 ]; then $(MAKE) --no-print-directory test-install; \
	else echo "make: test-install SKIPPED: it needs root and mmdebstrap (apt install mmdebstrap; it downloads about 165 MB of packages): make test-install"; fi

# soak runs a real liarsd run daemon (the binary built here) against the
# embedded broker and against Mosquitto while a client plays games over MQTT
# commands and a persistent QoS 1 subscriber records every event; the
# daemon is stopped SOAK_KILLS times at random (kill -9 or SIGTERM), and
# Mosquitto killed -9 now and then; then every event received is compared
# with liarsd adjudicate of the journal. It prints, for each broker: events,
# kills, lost, duplicated (identical), reordered, differing; it fails on any
# lost, reordered or differing. The commands go through clients that never
# send one again (as mosquitto_pub -q 1), and every command a broker
# acknowledged must be in the journal once: it prints commands,
# acknowledged, acknowledged but not journaled. SOAK_STOPS=kill9 makes every
# stop a kill -9 of the daemon. Minutes; make test runs a short version
# (TestSoak, 3 kills per broker).
SOAK_KILLS ?= 25
SOAK_STOPS ?= mixed
soak: build test-deps
	cd referee/daemon && LIARSD_SOAK_KILLS=$(SOAK_KILLS) LIARSD_SOAK_STOPS=$(SOAK_STOPS) LIARSD_SOAK_BIN=$(abspath $(BIN)) \
		$(GO) test $(GOTAGS) -count=1 -timeout 60m -run '^TestSoak$$' -v .

# bench-venue measures an event of many tables (docs/venue.md): a Swiss
# tournament of BENCH_PLAYERS computer players at BENCH_TABLES simulated
# tables (liarsd fleet, at BENCH_PACE_MS between moves) on one Mosquitto
# (docs/venue/venue.conf) on loopback, BENCH_ROUNDS rounds, the tournament
# service killed -9 three times during the first round and the broker
# restarted once during the second, a venue page in headless Chromium;
# before it, a table's link to the venue (the venue's bridges of
# docs/venue/venue-tables.conf to a table's Mosquitto, with a league's
# broker bridged to the venue, and to an embedded broker) cut for
# BRIDGE_CUT while the table plays.
# Every event is held against the tables' journals, every result against
# them, the standings against a replay of the tournament's journal. It
# ends with one line: venue: tables T, players P, rounds R, events E, lost
# L, reordered O, mismatched M. Half an hour or more on two busy cores.
BENCH_TABLES  ?= 200
BENCH_PLAYERS ?= 1000
BENCH_ROUNDS  ?= 3
BENCH_PACE_MS ?= 500
BRIDGE_CUT    ?= 60s
bench-venue: build test-deps
	set -o pipefail; LIARSD_BRIDGE_CUT=$(BRIDGE_CUT) LIARSD_BRIDGE_REPORT=1 $(GO) test $(GOTAGS) -count=1 -timeout 30m -run Bridged -v ./referee/fleet/ | tee bin/bench-venue.log
	set -o pipefail; LIARSD_BENCH_VENUE=1 LIARSD_BIN=$(abspath $(BIN)) LIARSD_BENCH_TABLES=$(BENCH_TABLES) LIARSD_BENCH_PLAYERS=$(BENCH_PLAYERS) \
		LIARSD_BENCH_ROUNDS=$(BENCH_ROUNDS) LIARSD_BENCH_PACE_MS=$(BENCH_PACE_MS) \
		$(GO) test $(GOTAGS) -count=1 -timeout 120m -run '^TestBenchVenue$$' -v ./referee/fleet/ | tee -a bin/bench-venue.log
	@grep '^venue:' bin/bench-venue.log | tail -1

# demo plays the referee on its embedded defaults until Ctrl-C. DURATION
# (e.g. DURATION=25s) makes it end by itself; RULES, SEATS, SEED, BROKER
# (with BROKER_WS, its WebSocket URL for the pages) and DEMO_FLAGS (any
# other flags of liarsd demo) change the game.
RULES ?= star-board
demo: build
	./$(BIN) demo --rules $(RULES) $(if $(SEATS),--seats $(SEATS)) $(if $(DURATION),--duration $(DURATION)) \
		$(if $(SEED),--seed $(SEED)) $(if $(BROKER),--broker $(BROKER)) $(if $(BROKER_WS),--broker-websocket $(BROKER_WS)) $$([ -t 1 ] && echo --color) $(DEMO_FLAGS)

# bench prints the project's figures: Go benchmarks of every package.
bench: deps
	$(GO) test $(GOTAGS) -run '^$$' -bench . -benchmem ./...
	# vision: accuracy on the labelled photographs' test split (../shared beside
	# the repository) with its reliability table and the read time per
	# photograph beside a plain OpenCV pipeline's, on synthetic star dice
	# (plain, marbled, glossy, saved as small JPEGs, cocked; each with and
	# without the star-dice hint), and one core's speed on a 1280x720 table
	# (taskset keeps OpenCV's threads on that core too).
	$(GO) build $(GOTAGS) $(BUILDINFO) -o $(BIN) ./cmd/liarsd
	GOMAXPROCS=1 taskset -c 0 ./$(BIN) readbench -photos ../shared/data/dice-photos -split test -synthetic 200 -marbled 200 -glossy 200 -jpeg 200 -cocked 200 -varied 100 -speed 100

# train retrains the dice reader's networks (vision/model/finder.onnx,
# faces.onnx) with PyTorch from the photographs' train/ split, the Rune55
# photographs and synthetic tables rendered by vision/synth, then chooses
# the decision's bars on the photographs and tables the recipe held out
# (reader.json). PyTorch, ONNX and OpenCV's Python bindings come from
# Debian (apt: PyPI is not needed). Hours on two cores (docs/vision.md,
# Training); CUDA is used when torch sees a GPU. The run keeps checkpoints
# and its learning curves in TRAIN_WORK: stopped, `make train` goes on
# where it was (TRAIN_FLAGS=--fresh starts over). TRAIN_FLAGS='...' trains
# otherwise (python3 vision/recipe/train.py -h).
PYTHON       ?= /usr/bin/python3
TRAIN_PKGS   := python3-torch python3-onnx python3-opencv python3-numpy
SYNTH_DIR    ?= build/synth
SYNTH_SCENES ?= 4000
SYNTH_HELD   ?= build/synth-held
TRAIN_WORK   ?= build/train
TRAIN_OUT    ?= vision/model
RUNE55       ?= ../shared/data/dice-photos-rune55
TRAIN_FLAGS  ?=
TRAIN_ARGS   := --photos ../shared/data/dice-photos $(if $(wildcard $(RUNE55)/labels.csv),--rune55 $(RUNE55) --rune-share 0.2,) \
	--synth $(SYNTH_DIR) --synth-held $(SYNTH_HELD) --work $(TRAIN_WORK) --out $(TRAIN_OUT) \
	--finder-steps 12000 --face-steps 11000 --face-widths 24,48,96,144 --photo-share 0.3 --mine-at 3000 --threads 2
train-deps:
	$(call install_missing,$(TRAIN_PKGS))

train: build train-deps
	@if [ ! -f $(SYNTH_DIR)/labels.csv ] || [ "$$(ls $(SYNTH_DIR)/images | wc -l)" != "$(SYNTH_SCENES)" ]; then \
		rm -rf $(SYNTH_DIR) && ./$(BIN) synth -varied -o $(SYNTH_DIR) -n $(SYNTH_SCENES) -seed 1000000; fi
	@if [ ! -f $(SYNTH_HELD)/labels.csv ] || [ "$$(ls $(SYNTH_HELD)/images | wc -l)" != "100" ]; then \
		rm -rf $(SYNTH_HELD) && ./$(BIN) synth -varied -o $(SYNTH_HELD) -n 100 -seed 900000; fi
	$(PYTHON) vision/recipe/train.py $(TRAIN_ARGS) $(TRAIN_FLAGS)
	$(GO) build $(GOTAGS) $(BUILDINFO) -o $(BIN) ./cmd/liarsd
	./$(BIN) readtrain -models $(TRAIN_OUT) -max-wrong-synthetic 0.005 -o $(TRAIN_OUT)/reader.json
	$(GO) build $(GOTAGS) $(BUILDINFO) -o $(BIN) ./cmd/liarsd

# train-check trains again from scratch into build/model-repro (its
# checkpoints in build/train-repro: stopped, it goes on where it was) and
# says whether the run reproduces the committed networks within make
# train's tolerance (liarsd traincheck; docs/vision.md, Reproducing).
REPRO_OUT  ?= build/model-repro
REPRO_WORK ?= build/train-repro
train-check: build
	$(MAKE) train TRAIN_OUT=$(REPRO_OUT) TRAIN_WORK=$(REPRO_WORK)
	./$(BIN) traincheck -want vision/model -got $(REPRO_OUT)

# train-house fine-tunes the face network on a table's own examples
# (camera.learn keeps them under STATE_DIR/examples) from the shipped
# networks' PyTorch weights (vision/model/*.pt), with the labelled
# photographs when they are here, and chooses its bars on the examples it
# held out; set camera.models to HOUSE_OUT to read with it (docs/vision.md).
HOUSE        ?=
HOUSE_OUT    ?= build/house-model
HOUSE_STEPS  ?= 600
HOUSE_PHOTOS ?= $(if $(wildcard ../shared/data/dice-photos/labels.csv),../shared/data/dice-photos,)
.PHONY: train-house
train-house: build train-deps
	@[ -n "$(HOUSE)" ] || { echo "make train-house: set HOUSE to a table's examples folder (camera.learn keeps them in STATE_DIR/examples)"; exit 2; }
	$(PYTHON) vision/recipe/train.py --photos '$(HOUSE_PHOTOS)' --house $(HOUSE) --finder vision/model/finder.pt --faces-init vision/model/faces.pt --face-steps $(HOUSE_STEPS) --lr 1e-3 --out $(HOUSE_OUT) $(TRAIN_FLAGS)
	./$(BIN) readtrain -photos $(HOUSE) -models $(HOUSE_OUT) -o $(HOUSE_OUT)/reader.json

# fuzz runs each fuzz target (by hand: they are not part of test) for
# FUZZTIME, but FuzzDecodeImage, which runs the whole dice reader on each
# image it decodes (hundreds of inputs a second, down to a few while it
# reads whole tables): FUZZTIME_IMAGE. The go command minimizes each new
# interesting input for up to 60 s besides the run's time, and a 30 s run
# of FuzzDecodeImage once went on past 200 s; with FUZZMINIMIZE_IMAGE a
# 30 s run stopped after 32 s (two cores, load 4).
FUZZTIME ?= 60s
FUZZTIME_IMAGE ?= 30s
FUZZMINIMIZE_IMAGE ?= 10s
fuzz: deps
	$(GO) test $(GOTAGS) -run '^$$' -fuzz '^FuzzDecodeLine$$' -fuzztime $(FUZZTIME) ./engine/record
	$(GO) test $(GOTAGS) -run '^$$' -fuzz '^FuzzDecodeFast$$' -fuzztime $(FUZZTIME) ./engine/record
	$(GO) test $(GOTAGS) -run '^$$' -fuzz '^FuzzTable$$' -fuzztime $(FUZZTIME) ./engine/record
	$(GO) test $(GOTAGS) -run '^$$' -fuzz '^FuzzDecodeCommand$$' -fuzztime $(FUZZTIME) ./engine/record
	$(GO) test $(GOTAGS) -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) ./calibration
	$(GO) test $(GOTAGS) -run '^$$' -fuzz '^FuzzDecodeImage$$' -fuzztime $(FUZZTIME_IMAGE) \
		-fuzzminimizetime $(FUZZMINIMIZE_IMAGE) ./vision

clean:
	rm -rf bin

# install puts liarsd on this machine as a service (docs/install.md): the
# binary in $(PREFIX)/bin, the systemd unit, an example configuration in
# /etc/liarsd (an existing one is kept), and a liarsd system user in the
# gpio, spi and video groups owning /var/lib/liarsd. Then:
#   sudo systemctl start liarsd; journalctl -u liarsd -f
PREFIX ?= /usr/local
install: build
	$(SUDO) install -D -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/liarsd
	sed 's|/usr/local/bin/liarsd|$(PREFIX)/bin/liarsd|g' docs/install/liarsd.service > bin/liarsd.service
	$(SUDO) install -D -m 0644 bin/liarsd.service $(DESTDIR)/etc/systemd/system/liarsd.service
	@for g in gpio spi video; do \
		getent group $$g >/dev/null || { echo "make: adding group $$g"; $(SUDO) groupadd --system $$g; }; \
	done
	@id -u liarsd >/dev/null 2>&1 || { echo "make: adding user liarsd"; \
		$(SUDO) useradd --system --user-group --home-dir /var/lib/liarsd --no-create-home --shell /usr/sbin/nologin liarsd; }
	$(SUDO) usermod -a -G gpio,spi,video liarsd
	$(SUDO) install -d -o liarsd -g liarsd -m 0750 $(DESTDIR)/var/lib/liarsd
	@if [ -e $(DESTDIR)/etc/liarsd/liarsd.yaml ]; then \
		echo "make: keeping /etc/liarsd/liarsd.yaml (the example is docs/install/liarsd.yaml)"; \
	else \
		pw=$$(head -c 12 /dev/urandom | base64 | tr -d '/+='); \
		sed "s/change-this-password/$$pw/" docs/install/liarsd.yaml > bin/liarsd.yaml; \
		$(SUDO) install -D -m 0640 -g liarsd bin/liarsd.yaml $(DESTDIR)/etc/liarsd/liarsd.yaml; \
		rm -f bin/liarsd.yaml; \
		echo "make: /etc/liarsd/liarsd.yaml's operator password is $$pw (the example's is refused beyond loopback)"; \
	fi
	$(SUDO) $(DESTDIR)$(PREFIX)/bin/liarsd run --check --config $(DESTDIR)/etc/liarsd/liarsd.yaml || true
	@if [ -d /run/systemd/system ]; then $(SUDO) systemctl daemon-reload && $(SUDO) systemctl enable liarsd; fi
	@echo "make: installed. Edit /etc/liarsd/liarsd.yaml, then: sudo systemctl restart liarsd; journalctl -u liarsd -f"
	@echo "make: the scoreboard will be at http://$$(hostname).local:8080/"

# --- Raspberry Pi: arm64 cross-build, Debian packages (docs/install.md) ---
# build-arm64 cross-compiles bin/liarsd-linux-arm64 with the native build's
# tags (GOTAGS) and link flags (BUILDINFO), against Debian bookworm's arm64
# OpenCV unpacked into ARM64_SYSROOT: bookworm's libopencv-dev is not
# Multi-Arch: same, so libopencv-dev:arm64 would remove the amd64 one.
# mmdebstrap's extract variant downloads the closure of ARM64_SYSROOT_PKGS
# (1.1 GB unpacked; 1 to 5 minutes here) and unpacks it without running anything;
# its absolute symlinks are made relative so they resolve inside the sysroot.
# CGO flags the native build exports reach the cross-build too: those it
# computes with $(PKG_CONFIG) read the sysroot's .pc files here (a
# target-specific PKG_CONFIG), as gocv's own pkg-config line does.
ARM64_BIN          := bin/liarsd-linux-arm64
ARM64_SYSROOT      ?= build/sysroot-arm64
ARM64_SYSROOT_PKGS := libopencv-dev,libc6-dev,libstdc++-12-dev
ARM64_SUITE        ?= bookworm
DEBIAN_MIRROR      ?= http://deb.debian.org/debian
CROSS_PKGS         := gcc-aarch64-linux-gnu g++-aarch64-linux-gnu mmdebstrap
arm64_root          = $(abspath $(ARM64_SYSROOT))
arm64_libs          = $(arm64_root)/lib/aarch64-linux-gnu:$(arm64_root)/usr/lib/aarch64-linux-gnu
arm64_pc            = PKG_CONFIG_SYSROOT_DIR=$(arm64_root) \
	PKG_CONFIG_LIBDIR=$(arm64_root)/usr/lib/aarch64-linux-gnu/pkgconfig:$(arm64_root)/usr/share/pkgconfig
ARM64_ENV = CGO_ENABLED=1 GOOS=linux GOARCH=arm64 $(arm64_pc) \
	CC='aarch64-linux-gnu-gcc --sysroot=$(arm64_root)' CXX='aarch64-linux-gnu-g++ --sysroot=$(arm64_root)' \
	CGO_LDFLAGS="$$CGO_LDFLAGS -Wl,-rpath-link=$(arm64_libs):$(arm64_root)/usr/lib/aarch64-linux-gnu/blas:$(arm64_root)/usr/lib/aarch64-linux-gnu/lapack"

.PHONY: cross-deps build-arm64 test-arm64 deb deb-native test-install

cross-deps: go-toolchain
	$(call install_missing,$(CROSS_PKGS))

$(ARM64_SYSROOT)/.done:
	$(MAKE) cross-deps
	$(SUDO) rm -rf $(ARM64_SYSROOT) && mkdir -p $(dir $(ARM64_SYSROOT))
	$(SUDO) mmdebstrap --quiet --variant=extract --arch=arm64 --include=$(ARM64_SYSROOT_PKGS) $(ARM64_SUITE) $(ARM64_SYSROOT) \
		"deb $(DEBIAN_MIRROR) $(ARM64_SUITE) main" "deb $(DEBIAN_MIRROR) $(ARM64_SUITE)-updates main" \
		"deb $(DEBIAN_MIRROR)-security $(ARM64_SUITE)-security main"
	find $(ARM64_SYSROOT) -type l -lname '/*' | while read -r l; do \
		$(SUDO) ln -sfnr "$(arm64_root)$$(readlink "$$l")" "$$l"; done
	$(SUDO) touch $@

build-arm64: PKG_CONFIG = env $(arm64_pc) pkg-config
build-arm64: cross-deps $(ARM64_SYSROOT)/.done
	@[ -e $(ARM64_BIN) ] || echo "make: the first arm64 build compiles gocv's OpenCV bindings for arm64: minutes with no output"
	$(ARM64_ENV) $(GO) build $(GOTAGS) $(BUILDINFO) -o $(ARM64_BIN) ./cmd/liarsd

# test-arm64 runs the arm64 build under qemu-user (installed through apt
# when missing; no binfmt needed) on the test photographs and the records,
# against this machine's build (cmd/liarsd/foreign_test.go). make test runs
# it only where the sysroot is made already: the sysroot is 1.1 GB and the
# first arm64 compile of gocv takes 3 to 15 minutes here (by load), so
# make build-arm64 once, then make test keeps the check.
QEMU_PKGS := qemu-user-static
test-arm64:
	@if [ ! -e $(ARM64_SYSROOT)/.done ] || ! command -v aarch64-linux-gnu-gcc >/dev/null; then \
		echo "make: test-arm64 SKIPPED: no arm64 sysroot and cross compiler here (make build-arm64 makes them: a 1.1 GB sysroot, then 3 to 15 minutes of compiling here)"; \
	else $(MAKE) --no-print-directory test-arm64-run; fi

.PHONY: test-arm64-run
test-arm64-run: build-arm64
	$(call install_missing,$(QEMU_PKGS))
	LIARSD_FOREIGN="qemu-aarch64-static -L $(arm64_root) -E LD_LIBRARY_PATH=/usr/lib/aarch64-linux-gnu/blas:/usr/lib/aarch64-linux-gnu/lapack $(abspath $(ARM64_BIN))" \
		$(GO) test $(GOTAGS) -count=1 -timeout 30m -run '^TestForeignBuildMatchesNative$$' -v ./cmd/liarsd

# deb makes bin/liarsd_$(DEB_VERSION)_ARCH.deb for this machine's
# architecture and, on amd64, for arm64 from the cross-build, with
# docs/install/mkdeb (dpkg-deb; Depends from dpkg-shlibdeps), then runs
# lintian on them: an error fails, the one warning left (hardening-no-pie)
# is explained in docs/install.md.
# test-install installs the native package in a clean bookworm root made by
# mmdebstrap and purges it (docs/install/test-install); the packages it
# downloads are kept in build/test-install-cache.
DEB_ARCH   := $(shell dpkg --print-architecture 2>/dev/null)
DEB_NATIVE  = bin/liarsd_$(DEB_VERSION)_$(DEB_ARCH).deb
DEB_PKGS   := dpkg-dev lintian

deb-native: build
	$(call install_missing,$(DEB_PKGS))
	rm -f bin/liarsd_*_$(DEB_ARCH).deb
	docs/install/mkdeb $(BIN) $(DEB_ARCH) $(DEB_VERSION) bin

deb: deb-native $(if $(filter amd64,$(DEB_ARCH)),build-arm64)
	$(if $(filter amd64,$(DEB_ARCH)),rm -f bin/liarsd_*_arm64.deb && docs/install/mkdeb $(ARM64_BIN) arm64 $(DEB_VERSION) bin $(BIN))
	lintian --fail-on error bin/liarsd_$(DEB_VERSION)_*.deb

test-install: deb-native
	$(call install_missing,mmdebstrap)
	time $(SUDO) docs/install/test-install $(DEB_NATIVE) $(VERSION) build/test-install-cache
