// Text for people: dates, durations, sizes and counts, in the browser's language.
//
// Capture dates come as `2024-07-14T18:02:10+02:00`, in the capture's own offset: the wall-clock time
// written there is the one to show (the photo was taken at 18:02 where it was taken), so dates are read
// from the text rather than converted to the browser's time zone.

const dayFormat = new Intl.DateTimeFormat(undefined, { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
const dayFormatThisYear = new Intl.DateTimeFormat(undefined, { weekday: 'long', day: 'numeric', month: 'long', timeZone: 'UTC' });
const shortDayFormat = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
const timeFormat = new Intl.DateTimeFormat(undefined, { hour: 'numeric', minute: '2-digit', timeZone: 'UTC' });
const numberFormat = new Intl.NumberFormat();

/** The `YYYY-MM-DD` day of a timestamp's text, in its own offset; null without one. */
export function dayOf(timestamp) {
  return typeof timestamp === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(timestamp) ? timestamp.slice(0, 10) : null;
}

/** The wall-clock time of a timestamp's text as a Date in UTC (for formatting with timeZone UTC). */
function wallClock(timestamp) {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?/.exec(timestamp ?? '');
  if (!match) return null;
  const [, year, month, day, hour, minute, second] = match.map(Number);
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second || 0));
}

/** "Friday, 5 January 2024" for a moment's day (`2024-01-05`); the year left out in the current year. */
export function longDay(day) {
  const date = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(date.getTime())) return day;
  return (date.getUTCFullYear() === new Date().getFullYear() ? dayFormatThisYear : dayFormat).format(date);
}

/** "5 Jan 2024" for a moment's day. */
export function shortDay(day) {
  const date = new Date(`${day}T00:00:00Z`);
  return Number.isNaN(date.getTime()) ? day : shortDayFormat.format(date);
}

/** "18:02" (or "6:02 PM") at the capture's place. */
export function time(timestamp) {
  const date = wallClock(timestamp);
  return date ? timeFormat.format(date) : '';
}

/** "Friday, 5 January 2024, 18:02 (UTC+02:00)". */
export function dateTime(timestamp) {
  const date = wallClock(timestamp);
  if (!date) return 'No date';
  const offset = /(Z|[+-]\d{2}:\d{2})$/.exec(timestamp)?.[1];
  const zone = offset === 'Z' ? 'UTC' : offset ? `UTC${offset}` : '';
  return `${dayFormat.format(date)}, ${timeFormat.format(date)}${zone ? ` (${zone})` : ''}`;
}

/** "0:07", "12:30", "1:02:03" for a duration in seconds. */
export function duration(seconds) {
  const total = Math.max(0, Math.round(seconds || 0));
  const hours = Math.floor(total / 3600), minutes = Math.floor((total % 3600) / 60), rest = total % 60;
  const two = (value) => String(value).padStart(2, '0');
  return hours > 0 ? `${hours}:${two(minutes)}:${two(rest)}` : `${minutes}:${two(rest)}`;
}

/** "2.4 MB" for a byte count. */
export function bytes(count) {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  let value = count, unit = 0;
  while (value >= 1000 && unit < units.length - 1) { value /= 1000; unit += 1; }
  return unit === 0 ? `${numberFormat.format(value)} bytes` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** "1,234". */
export function number(value) {
  return numberFormat.format(value);
}

/** "1 photo", "3 photos", "2 photos and 1 video" for a list of assets. */
export function itemCount(assets) {
  let photos = 0, videos = 0, other = 0;
  for (const asset of assets) {
    if (asset.mediaType === 'image') photos += 1;
    else if (asset.mediaType === 'video') videos += 1;
    else other += 1;
  }
  const parts = [];
  if (photos) parts.push(plural(photos, 'photo'));
  if (videos) parts.push(plural(videos, 'video'));
  if (other) parts.push(plural(other, 'item'));
  return parts.length ? parts.join(' and ') : 'Empty';
}

/** "1 photo", "12 photos". */
export function plural(count, noun) {
  return `${numberFormat.format(count)} ${noun}${count === 1 ? '' : 's'}`;
}

/** A sentence describing an asset for assistive technology: "Photo, IMG_0001.jpg, 18:02". */
export function describe(asset) {
  const kind = asset.mediaType === 'video' ? `Video, ${duration(asset.duration)}` : asset.mediaType === 'image' ? 'Photo' : 'Item';
  const when = asset.creationDate ? `, ${time(asset.creationDate)}` : '';
  return `${kind}, ${asset.originalFilename}${when}${asset.isFavorite ? ', favourite' : ''}`;
}
