// Windows time-zone names for IANA zones: data transcribed from Unicode CLDR (source and version below).

package wintz

// windowsZoneTable maps Windows time-zone keys to the IANA zones that use
// them: one line per key, "KEY<TAB>IANA IANA ...", every territory's zones
// merged (territory 001's default first).
//
// Source: Unicode CLDR common/supplemental/windowsZones.xml,
// <mapTimezones otherVersion="7e11800" typeVersion="2021a">, as in
// unicode-org/cldr at commit 062dc06d16b0884bc42b0b04e5408aec6b85eb20. Only
// the facts (which key goes with which zone) are taken; the layout is ours.
const windowsZoneTable = "" +
	"Dateline Standard Time\tEtc/GMT+12\n" +
	"UTC-11\tEtc/GMT+11 Pacific/Pago_Pago Pacific/Niue Pacific/Midway\n" +
	"Aleutian Standard Time\tAmerica/Adak\n" +
	"Hawaiian Standard Time\tPacific/Honolulu Pacific/Rarotonga Pacific/Tahiti Etc/GMT+10\n" +
	"Marquesas Standard Time\tPacific/Marquesas\n" +
	"Alaskan Standard Time\tAmerica/Anchorage America/Juneau America/Metlakatla America/Nome America/Sitka America/Yakutat\n" +
	"UTC-09\tEtc/GMT+9 Pacific/Gambier\n" +
	"Pacific Standard Time (Mexico)\tAmerica/Tijuana\n" +
	"UTC-08\tEtc/GMT+8 Pacific/Pitcairn\n" +
	"Pacific Standard Time\tAmerica/Los_Angeles America/Vancouver\n" +
	"US Mountain Standard Time\tAmerica/Phoenix America/Creston America/Dawson_Creek America/Fort_Nelson America/Hermosillo Etc/GMT+7\n" +
	"Mountain Standard Time (Mexico)\tAmerica/Mazatlan\n" +
	"Mountain Standard Time\tAmerica/Denver America/Edmonton America/Cambridge_Bay America/Inuvik America/Ciudad_Juarez America/Boise\n" +
	"Yukon Standard Time\tAmerica/Whitehorse America/Dawson\n" +
	"Central America Standard Time\tAmerica/Guatemala America/Belize America/Costa_Rica Pacific/Galapagos America/Tegucigalpa America/Managua America/El_Salvador Etc/GMT+6\n" +
	"Central Standard Time\tAmerica/Chicago America/Winnipeg America/Rankin_Inlet America/Resolute America/Matamoros America/Ojinaga America/Indiana/Knox America/Indiana/Tell_City America/Menominee America/North_Dakota/Beulah America/North_Dakota/Center America/North_Dakota/New_Salem\n" +
	"Easter Island Standard Time\tPacific/Easter\n" +
	"Central Standard Time (Mexico)\tAmerica/Mexico_City America/Bahia_Banderas America/Merida America/Monterrey America/Chihuahua\n" +
	"Canada Central Standard Time\tAmerica/Regina America/Swift_Current\n" +
	"SA Pacific Standard Time\tAmerica/Bogota America/Rio_Branco America/Eirunepe America/Coral_Harbour America/Guayaquil America/Jamaica America/Cayman America/Panama America/Lima Etc/GMT+5\n" +
	"Eastern Standard Time (Mexico)\tAmerica/Cancun\n" +
	"Eastern Standard Time\tAmerica/New_York America/Nassau America/Toronto America/Iqaluit America/Detroit America/Indiana/Petersburg America/Indiana/Vincennes America/Indiana/Winamac America/Kentucky/Monticello America/Louisville\n" +
	"Haiti Standard Time\tAmerica/Port-au-Prince\n" +
	"Cuba Standard Time\tAmerica/Havana\n" +
	"US Eastern Standard Time\tAmerica/Indianapolis America/Indiana/Marengo America/Indiana/Vevay\n" +
	"Turks And Caicos Standard Time\tAmerica/Grand_Turk\n" +
	"Paraguay Standard Time\tAmerica/Asuncion\n" +
	"Atlantic Standard Time\tAmerica/Halifax Atlantic/Bermuda America/Glace_Bay America/Goose_Bay America/Moncton America/Thule\n" +
	"Venezuela Standard Time\tAmerica/Caracas\n" +
	"Central Brazilian Standard Time\tAmerica/Cuiaba America/Campo_Grande\n" +
	"SA Western Standard Time\tAmerica/La_Paz America/Antigua America/Anguilla America/Aruba America/Barbados America/St_Barthelemy America/Kralendijk America/Manaus America/Boa_Vista America/Porto_Velho America/Blanc-Sablon America/Curacao America/Dominica America/Santo_Domingo America/Grenada America/Guadeloupe America/Guyana America/St_Kitts America/St_Lucia America/Marigot America/Martinique America/Montserrat America/Puerto_Rico America/Lower_Princes America/Port_of_Spain America/St_Vincent America/Tortola America/St_Thomas Etc/GMT+4\n" +
	"Pacific SA Standard Time\tAmerica/Santiago\n" +
	"Newfoundland Standard Time\tAmerica/St_Johns\n" +
	"Tocantins Standard Time\tAmerica/Araguaina\n" +
	"E. South America Standard Time\tAmerica/Sao_Paulo\n" +
	"SA Eastern Standard Time\tAmerica/Cayenne Antarctica/Rothera Antarctica/Palmer America/Fortaleza America/Belem America/Maceio America/Recife America/Santarem Atlantic/Stanley America/Paramaribo Etc/GMT+3\n" +
	"Argentina Standard Time\tAmerica/Buenos_Aires America/Argentina/La_Rioja America/Argentina/Rio_Gallegos America/Argentina/Salta America/Argentina/San_Juan America/Argentina/San_Luis America/Argentina/Tucuman America/Argentina/Ushuaia America/Catamarca America/Cordoba America/Jujuy America/Mendoza\n" +
	"Greenland Standard Time\tAmerica/Godthab\n" +
	"Montevideo Standard Time\tAmerica/Montevideo\n" +
	"Magallanes Standard Time\tAmerica/Punta_Arenas\n" +
	"Saint Pierre Standard Time\tAmerica/Miquelon\n" +
	"Bahia Standard Time\tAmerica/Bahia\n" +
	"UTC-02\tEtc/GMT+2 America/Noronha Atlantic/South_Georgia\n" +
	"Azores Standard Time\tAtlantic/Azores America/Scoresbysund\n" +
	"Cape Verde Standard Time\tAtlantic/Cape_Verde Etc/GMT+1\n" +
	"UTC\tEtc/UTC Etc/GMT\n" +
	"GMT Standard Time\tEurope/London Atlantic/Canary Atlantic/Faeroe Europe/Guernsey Europe/Dublin Europe/Isle_of_Man Europe/Jersey Europe/Lisbon Atlantic/Madeira\n" +
	"Greenwich Standard Time\tAtlantic/Reykjavik Africa/Ouagadougou Africa/Abidjan Africa/Accra America/Danmarkshavn Africa/Banjul Africa/Conakry Africa/Bissau Africa/Monrovia Africa/Bamako Africa/Nouakchott Atlantic/St_Helena Africa/Freetown Africa/Dakar Africa/Lome\n" +
	"Sao Tome Standard Time\tAfrica/Sao_Tome\n" +
	"Morocco Standard Time\tAfrica/Casablanca Africa/El_Aaiun\n" +
	"W. Europe Standard Time\tEurope/Berlin Europe/Andorra Europe/Vienna Europe/Zurich Europe/Busingen Europe/Gibraltar Europe/Rome Europe/Vaduz Europe/Luxembourg Europe/Monaco Europe/Malta Europe/Amsterdam Europe/Oslo Europe/Stockholm Arctic/Longyearbyen Europe/San_Marino Europe/Vatican\n" +
	"Central Europe Standard Time\tEurope/Budapest Europe/Tirane Europe/Prague Europe/Podgorica Europe/Belgrade Europe/Ljubljana Europe/Bratislava\n" +
	"Romance Standard Time\tEurope/Paris Europe/Brussels Europe/Copenhagen Europe/Madrid Africa/Ceuta\n" +
	"Central European Standard Time\tEurope/Warsaw Europe/Sarajevo Europe/Zagreb Europe/Skopje\n" +
	"W. Central Africa Standard Time\tAfrica/Lagos Africa/Luanda Africa/Porto-Novo Africa/Kinshasa Africa/Bangui Africa/Brazzaville Africa/Douala Africa/Algiers Africa/Libreville Africa/Malabo Africa/Niamey Africa/Ndjamena Africa/Tunis Etc/GMT-1\n" +
	"Jordan Standard Time\tAsia/Amman\n" +
	"GTB Standard Time\tEurope/Bucharest Asia/Nicosia Asia/Famagusta Europe/Athens\n" +
	"Middle East Standard Time\tAsia/Beirut\n" +
	"Egypt Standard Time\tAfrica/Cairo\n" +
	"E. Europe Standard Time\tEurope/Chisinau\n" +
	"Syria Standard Time\tAsia/Damascus\n" +
	"West Bank Standard Time\tAsia/Hebron Asia/Gaza\n" +
	"South Africa Standard Time\tAfrica/Johannesburg Africa/Bujumbura Africa/Gaborone Africa/Lubumbashi Africa/Maseru Africa/Blantyre Africa/Maputo Africa/Kigali Africa/Mbabane Africa/Lusaka Africa/Harare Etc/GMT-2\n" +
	"FLE Standard Time\tEurope/Kiev Europe/Mariehamn Europe/Sofia Europe/Tallinn Europe/Helsinki Europe/Vilnius Europe/Riga\n" +
	"Israel Standard Time\tAsia/Jerusalem\n" +
	"South Sudan Standard Time\tAfrica/Juba\n" +
	"Kaliningrad Standard Time\tEurope/Kaliningrad\n" +
	"Sudan Standard Time\tAfrica/Khartoum\n" +
	"Libya Standard Time\tAfrica/Tripoli\n" +
	"Namibia Standard Time\tAfrica/Windhoek\n" +
	"Arabic Standard Time\tAsia/Baghdad\n" +
	"Turkey Standard Time\tEurope/Istanbul\n" +
	"Arab Standard Time\tAsia/Riyadh Asia/Bahrain Asia/Kuwait Asia/Qatar Asia/Aden\n" +
	"Belarus Standard Time\tEurope/Minsk\n" +
	"Russian Standard Time\tEurope/Moscow Europe/Kirov Europe/Simferopol\n" +
	"E. Africa Standard Time\tAfrica/Nairobi Antarctica/Syowa Africa/Djibouti Africa/Asmera Africa/Addis_Ababa Indian/Comoro Indian/Antananarivo Africa/Mogadishu Africa/Dar_es_Salaam Africa/Kampala Indian/Mayotte Etc/GMT-3\n" +
	"Iran Standard Time\tAsia/Tehran\n" +
	"Arabian Standard Time\tAsia/Dubai Asia/Muscat Etc/GMT-4\n" +
	"Astrakhan Standard Time\tEurope/Astrakhan Europe/Ulyanovsk\n" +
	"Azerbaijan Standard Time\tAsia/Baku\n" +
	"Russia Time Zone 3\tEurope/Samara\n" +
	"Mauritius Standard Time\tIndian/Mauritius Indian/Reunion Indian/Mahe\n" +
	"Saratov Standard Time\tEurope/Saratov\n" +
	"Georgian Standard Time\tAsia/Tbilisi\n" +
	"Volgograd Standard Time\tEurope/Volgograd\n" +
	"Caucasus Standard Time\tAsia/Yerevan\n" +
	"Afghanistan Standard Time\tAsia/Kabul\n" +
	"West Asia Standard Time\tAsia/Tashkent Antarctica/Mawson Asia/Oral Asia/Almaty Asia/Aqtau Asia/Aqtobe Asia/Atyrau Asia/Qostanay Indian/Maldives Indian/Kerguelen Asia/Dushanbe Asia/Ashgabat Asia/Samarkand Etc/GMT-5\n" +
	"Ekaterinburg Standard Time\tAsia/Yekaterinburg\n" +
	"Pakistan Standard Time\tAsia/Karachi\n" +
	"Qyzylorda Standard Time\tAsia/Qyzylorda\n" +
	"India Standard Time\tAsia/Calcutta\n" +
	"Sri Lanka Standard Time\tAsia/Colombo\n" +
	"Nepal Standard Time\tAsia/Katmandu\n" +
	"Central Asia Standard Time\tAsia/Bishkek Antarctica/Vostok Asia/Urumqi Indian/Chagos Etc/GMT-6\n" +
	"Bangladesh Standard Time\tAsia/Dhaka Asia/Thimphu\n" +
	"Omsk Standard Time\tAsia/Omsk\n" +
	"Myanmar Standard Time\tAsia/Rangoon Indian/Cocos\n" +
	"SE Asia Standard Time\tAsia/Bangkok Antarctica/Davis Indian/Christmas Asia/Jakarta Asia/Pontianak Asia/Phnom_Penh Asia/Vientiane Asia/Saigon Etc/GMT-7\n" +
	"Altai Standard Time\tAsia/Barnaul\n" +
	"W. Mongolia Standard Time\tAsia/Hovd\n" +
	"North Asia Standard Time\tAsia/Krasnoyarsk Asia/Novokuznetsk\n" +
	"N. Central Asia Standard Time\tAsia/Novosibirsk\n" +
	"Tomsk Standard Time\tAsia/Tomsk\n" +
	"China Standard Time\tAsia/Shanghai Asia/Hong_Kong Asia/Macau\n" +
	"North Asia East Standard Time\tAsia/Irkutsk\n" +
	"Singapore Standard Time\tAsia/Singapore Asia/Brunei Asia/Makassar Asia/Kuala_Lumpur Asia/Kuching Asia/Manila Etc/GMT-8\n" +
	"W. Australia Standard Time\tAustralia/Perth\n" +
	"Taipei Standard Time\tAsia/Taipei\n" +
	"Ulaanbaatar Standard Time\tAsia/Ulaanbaatar Asia/Choibalsan\n" +
	"Aus Central W. Standard Time\tAustralia/Eucla\n" +
	"Transbaikal Standard Time\tAsia/Chita\n" +
	"Tokyo Standard Time\tAsia/Tokyo Asia/Jayapura Pacific/Palau Asia/Dili Etc/GMT-9\n" +
	"North Korea Standard Time\tAsia/Pyongyang\n" +
	"Korea Standard Time\tAsia/Seoul\n" +
	"Yakutsk Standard Time\tAsia/Yakutsk Asia/Khandyga\n" +
	"Cen. Australia Standard Time\tAustralia/Adelaide Australia/Broken_Hill\n" +
	"AUS Central Standard Time\tAustralia/Darwin\n" +
	"E. Australia Standard Time\tAustralia/Brisbane Australia/Lindeman\n" +
	"AUS Eastern Standard Time\tAustralia/Sydney Australia/Melbourne\n" +
	"West Pacific Standard Time\tPacific/Port_Moresby Antarctica/DumontDUrville Pacific/Truk Pacific/Guam Pacific/Saipan Etc/GMT-10\n" +
	"Tasmania Standard Time\tAustralia/Hobart Antarctica/Macquarie\n" +
	"Vladivostok Standard Time\tAsia/Vladivostok Asia/Ust-Nera\n" +
	"Lord Howe Standard Time\tAustralia/Lord_Howe\n" +
	"Bougainville Standard Time\tPacific/Bougainville\n" +
	"Russia Time Zone 10\tAsia/Srednekolymsk\n" +
	"Magadan Standard Time\tAsia/Magadan\n" +
	"Norfolk Standard Time\tPacific/Norfolk\n" +
	"Sakhalin Standard Time\tAsia/Sakhalin\n" +
	"Central Pacific Standard Time\tPacific/Guadalcanal Antarctica/Casey Pacific/Ponape Pacific/Kosrae Pacific/Noumea Pacific/Efate Etc/GMT-11\n" +
	"Russia Time Zone 11\tAsia/Kamchatka Asia/Anadyr\n" +
	"New Zealand Standard Time\tPacific/Auckland Antarctica/McMurdo\n" +
	"UTC+12\tEtc/GMT-12 Pacific/Tarawa Pacific/Majuro Pacific/Kwajalein Pacific/Nauru Pacific/Funafuti Pacific/Wake Pacific/Wallis\n" +
	"Fiji Standard Time\tPacific/Fiji\n" +
	"Chatham Islands Standard Time\tPacific/Chatham\n" +
	"UTC+13\tEtc/GMT-13 Pacific/Enderbury Pacific/Fakaofo\n" +
	"Tonga Standard Time\tPacific/Tongatapu\n" +
	"Samoa Standard Time\tPacific/Apia\n" +
	"Line Islands Standard Time\tPacific/Kiritimati Etc/GMT-14\n"

// ianaAliases maps IANA names the table does not list (current spellings,
// and the "backward" links of the tz database such as UTC or US/Pacific)
// to the name it lists: "ALIAS NAME" per line. CLDR keeps the older
// spelling as its canonical id (Asia/Calcutta for Asia/Kolkata).
const ianaAliases = "" +
	"Asia/Kolkata Asia/Calcutta\n" +
	"Asia/Kathmandu Asia/Katmandu\n" +
	"Asia/Yangon Asia/Rangoon\n" +
	"Asia/Ho_Chi_Minh Asia/Saigon\n" +
	"Europe/Kyiv Europe/Kiev\n" +
	"America/Nuuk America/Godthab\n" +
	"America/Indiana/Indianapolis America/Indianapolis\n" +
	"America/Fort_Wayne America/Indianapolis\n" +
	"America/Argentina/Buenos_Aires America/Buenos_Aires\n" +
	"America/Argentina/Catamarca America/Catamarca\n" +
	"America/Argentina/Cordoba America/Cordoba\n" +
	"America/Argentina/Jujuy America/Jujuy\n" +
	"America/Argentina/Mendoza America/Mendoza\n" +
	"America/Kentucky/Louisville America/Louisville\n" +
	"Pacific/Chuuk Pacific/Truk\n" +
	"Pacific/Pohnpei Pacific/Ponape\n" +
	"Atlantic/Faroe Atlantic/Faeroe\n" +
	"Africa/Asmara Africa/Asmera\n" +
	"America/Atikokan America/Coral_Harbour\n" +
	"Pacific/Kanton Pacific/Enderbury\n" +
	"UTC Etc/UTC\n" +
	"Etc/UCT Etc/UTC\n" +
	"UCT Etc/UTC\n" +
	"Etc/Universal Etc/UTC\n" +
	"Universal Etc/UTC\n" +
	"Etc/Zulu Etc/UTC\n" +
	"Zulu Etc/UTC\n" +
	"GMT Etc/UTC\n" +
	"Etc/GMT0 Etc/UTC\n" +
	"Etc/GMT+0 Etc/UTC\n" +
	"Etc/GMT-0 Etc/UTC\n" +
	"GMT0 Etc/UTC\n" +
	"GMT+0 Etc/UTC\n" +
	"GMT-0 Etc/UTC\n" +
	"Etc/Greenwich Etc/UTC\n" +
	"Greenwich Etc/UTC\n" +
	"US/Pacific America/Los_Angeles\n" +
	"US/Mountain America/Denver\n" +
	"US/Arizona America/Phoenix\n" +
	"US/Central America/Chicago\n" +
	"US/Eastern America/New_York\n" +
	"US/Alaska America/Anchorage\n" +
	"US/Hawaii Pacific/Honolulu\n" +
	"Europe/Belfast Europe/London\n" +
	"GB Europe/London\n" +
	"Japan Asia/Tokyo\n" +
	"PRC Asia/Shanghai\n" +
	"ROK Asia/Seoul\n" +
	"Singapore Asia/Singapore\n" +
	"Israel Asia/Jerusalem\n" +
	"Turkey Europe/Istanbul\n" +
	"Asia/Istanbul Europe/Istanbul\n" +
	"Europe/Nicosia Asia/Nicosia\n" +
	"Australia/ACT Australia/Sydney\n" +
	"Australia/NSW Australia/Sydney\n" +
	"Australia/Canberra Australia/Sydney\n" +
	"Australia/Victoria Australia/Melbourne\n" +
	"Australia/Queensland Australia/Brisbane\n" +
	"Australia/West Australia/Perth\n" +
	"Australia/South Australia/Adelaide\n" +
	"Australia/North Australia/Darwin\n" +
	"Australia/Tasmania Australia/Hobart\n" +
	"NZ Pacific/Auckland\n" +
	"Canada/Pacific America/Vancouver\n" +
	"Canada/Mountain America/Edmonton\n" +
	"Canada/Central America/Winnipeg\n" +
	"Canada/Eastern America/Toronto\n" +
	"Canada/Atlantic America/Halifax\n" +
	"Canada/Newfoundland America/St_Johns\n" +
	"Brazil/East America/Sao_Paulo\n" +
	"Mexico/General America/Mexico_City\n"
