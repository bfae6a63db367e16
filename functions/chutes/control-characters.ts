/** Control characters (C0, DEL, C1) as a regular expression's range: no SSID and no hostapd `SET` holds one. */
export const CONTROL_RANGE = '\\u0000-\\u001f\\u007f-\\u009f';

/** Matches a text that holds a control character (`CONTROL_RANGE`). */
export const CONTROL_CHARACTER = new RegExp(`[${CONTROL_RANGE}]`);
