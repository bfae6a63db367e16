/*
 * The station blocks a living access point renders a station from when its scenario recorded none
 * (an access point of a chute installed through the API, in a scenario with no station dump at all):
 * the layout of OpenWrt's iw 6.x and hostapd 2.10, as in fixtures/scenarios/default and
 * fixtures/raw/hostapd_all_sta. Their MAC, interface, counters, signal and times are rewritten.
 */

/** `iw dev <if> station dump` of one 802.11n station. */
export const IW_TEMPLATE = `Station 02:00:00:00:00:00 (on wlan0)
\tinactive time:\t40 ms
\trx bytes:\t0
\trx packets:\t0
\ttx bytes:\t0
\ttx packets:\t0
\ttx retries:\t0
\ttx failed:\t0
\trx drop misc:\t0
\tsignal:  \t-55 [-58, -60] dBm
\tsignal avg:\t-55 [-58, -60] dBm
\ttx bitrate:\t144.4 MBit/s MCS 15 short GI
\ttx duration:\t0 us
\trx bitrate:\t130.0 MBit/s MCS 15
\trx duration:\t0 us
\tlast ack signal:-55 dBm
\tavg ack signal:\t-55 dBm
\tairtime weight: 256
\texpected throughput:\t81.541Mbps
\tauthorized:\tyes
\tauthenticated:\tyes
\tassociated:\tyes
\tpreamble:\tshort
\tWMM/WME:\tyes
\tMFP:\t\tno
\tTDLS peer:\tno
\tDTIM period:\t2
\tbeacon interval:100
\tshort preamble:\tyes
\tshort slot time:yes
\tconnected time:\t0 seconds
\tassociated at [boottime]:\t0.000s
\tassociated at:\t0 ms
\tcurrent time:\t0 ms
`;

/** hostapd's `STA` reply (`all_sta`) for one WPA2 802.11n station. */
export const ALL_STA_TEMPLATE = `02:00:00:00:00:00
flags=[AUTH][ASSOC][AUTHORIZED][WMM][HT]
aid=1
capability=0x1431
listen_interval=10
supported_rates=82 84 8b 96 0c 12 18 24 30 48 60 6c
timeout_next=NULLFUNC POLL
dot11RSNAStatsSTAAddress=02:00:00:00:00:00
dot11RSNAStatsVersion=1
dot11RSNAStatsSelectedPairwiseCipher=00-0f-ac-4
dot11RSNAStatsTKIPLocalMICFailures=0
dot11RSNAStatsTKIPRemoteMICFailures=0
wpa=2
AKMSuiteSelector=00-0f-ac-2
hostapdWPAPTKState=11
hostapdWPAPTKGroupState=0
rx_packets=0
tx_packets=0
rx_bytes=0
tx_bytes=0
inactive_msec=40
signal=-55
rx_rate_info=1300 mcs 15
tx_rate_info=1444 mcs 15 shortGI
connected_time=0
`;
