module github.com/liarsd/liarsd

go 1.24.0

require (
	github.com/eclipse/paho.mqtt.golang v1.5.1 // indirect
	github.com/gorilla/websocket v1.5.3 // indirect
	github.com/jonboulle/clockwork v0.5.0 // indirect
	github.com/mochi-mqtt/server/v2 v2.7.9 // indirect
	github.com/prometheus/client_golang v1.22.0 // indirect
	github.com/rs/xid v1.4.0 // indirect
	gocv.io/x/gocv v0.31.0 // indirect
	golang.org/x/net v0.44.0 // indirect
	golang.org/x/sync v0.17.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
	periph.io/x/conn/v3 v3.7.2 // indirect
	periph.io/x/devices/v3 v3.7.4 // indirect
	periph.io/x/host/v3 v3.8.5 // indirect
)
