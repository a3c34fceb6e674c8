"""পাঠ ০৮-এর সংকলনের সারণি: কোন উৎসের কোন লেখা রাখা হলো, কেন, আর কোনটা কেন বাদ (ইংরেজি আর বাংলায়)।

tools/build_bn_literature.py এগুলো পড়ে provenance লেখে; tests/test_literature.py দেখে যে provenance এদের সঙ্গে
মেলে। নিয়ম (RULE): লেখকের মৃত্যু ১৯৬৬-র আগে, আর লেখাটি ১৯৩০-এর আগে প্রথম প্রকাশিত; সন্দেহ থাকলে বাদ।
"""
from __future__ import annotations

RULE = ("kept only if the author died more than 60 years before 2026 (Bangladesh and India: 60 years counted from "
        "the year after death) AND the work was first published before 1930 (in the US, works published in 1930 or "
        "earlier are public domain from 2026-01-01, 95 years after publication; before 1930 is one year stricter); "
        "when in doubt, left out")
LICENCE = "public domain (author died before 1966; published before 1930)"

# উৎস → pinned commit (প্রতিটি commit-এ ফাইলগুলো আছে, আর commit-টি কোনো branch থেকে পৌঁছানো যায়)
COMMITS = {
    "majantali/majantali.github.io": "891da504d66cef68045b6a6109afe2d7ca931ad9",
    "deep5050/RabiGuru": "3324815164495bcaecaaf092cf255998360a28f0",            # branch development
    "7shi/bou-thakuranir_haat": "564f74453379878cd5a32be45d57eb1f284457d9",
    "ronik18/earnalism-digital-library": "10cdefee46ebeee10be5a528eed8c1509838afbc",
    "gsurma/text_predictor": "8caf949bf8c9a5dc8cfbc7afebf83f33c221dccc",
    "shuhanmirza/Bengali-Poem-Dataset": "e6afec649a40ac090f0f9e7024a4a657adb273d1",
    "majantali/gitabitan": "85159db64693dbdbb77e2b3ce13679cdf7cd1227",
}
SMALL_REPO = "majantali/majantali.github.io"

# ---------------------------------------------------------------- ছোট সংকলন: majantali.github.io/bnarchive
# (ফাইলের নাম, id, লেখক (ইংরেজি), লেখকের জীবনকাল, প্রথম প্রকাশ, টীকা)
KEPT = [
    ("RabindranathTagore_Prose_GalpaGuchchha_1", "galpaguchchha1", "Rabindranath Tagore", "1861-1941",
     "stories first published in periodicals from 1884 to the 1890s; collected 1900-1901; "
     "Visva-Bharati edition 1926",
     "short stories (গল্প); each story is one piece"),
    ("RabindranathTagore_Prose_Lipika", "lipika", "Rabindranath Tagore", "1861-1941", "1922",
     "prose pieces"),
    ("RabindranathTagore_Poetry_Kalpana", "kalpana", "Rabindranath Tagore", "1861-1941", "1900",
     "poems"),
    ("MichaelMadhusudanDutta_Poetry_Chaturdashpadi", "chaturdashpadi", "Michael Madhusudan Dutt", "1824-1873",
     "1866", "sonnets"),
    ("BharatChandraRay_Rasamanjari", "rasamanjari", "Bharatchandra Ray Gunakar", "1712-1760",
     "18th century (before 1760)", "verse"),
    ("SukumarRay_Poetry_AbolTabol", "aboltabol", "Sukumar Ray", "1887-1923", "1923", "nonsense verse"),
    ("SukumarRay_Prose_Hajabarala", "hajabarala", "Sukumar Ray", "1887-1923",
     "serialised in Sandesh from 1921, before the author's death in 1923", "novella"),
]

LEFT_OUT = [
    ("RabindranathTagore_Songs_Bhanusimha", "Rabindranath Tagore", "1861-1941", "1884 (first book edition)",
     "the songs were first printed in 1884, but Tagore revised them for later collections, some after 1930, and "
     "this text may follow a revised edition: publication of this text before 1930 is not shown"),
    ("RabindranathTagore_Poetry_Punashcha", "Rabindranath Tagore", "1861-1941", "1932",
     "first published 1932: not public domain in the US before 2028"),
    ("RabindranathTagore_Songs_Puja", "Rabindranath Tagore", "1861-1941", "Gitabitan, 1931-1941",
     "songs written up to 1941, collected in Gitabitan from 1931: publication before 1930 not shown song by song"),
    ("RabindranathTagore_Songs_Swadesh", "Rabindranath Tagore", "1861-1941", "Gitabitan, 1931-1941",
     "as for Puja: publication before 1930 not shown song by song"),
    ("SukumarRay_Poetry_KhaiKhai", "Sukumar Ray", "1887-1923", "1950", "first published as a book in 1950"),
    ("SukumarRay_Prose_PaglaDashu", "Sukumar Ray", "1887-1923", "1940",
     "collected in 1940; first publication of each story before 1930 not shown here"),
    ("AbanindranathTagore_Prose_BuroAngla", "Abanindranath Tagore", "1871-1951", "1941",
     "published 1941: not public domain in the US before 2037"),
    ("GaganendranathTagore_Prose_BhondorBahadur", "Gaganendranath Tagore", "1867-1938", "not established here",
     "author dead more than 60 years, but the first publication year could not be established"),
    ("Historic_Charyapad", "Buddhist siddhacharyas", "c. 8th-12th century", "first printed 1916",
     "Old Bengali (a different stage of the language), and the edition this text follows is not stated"),
]

# যে খণ্ড লেখা নয় (তালিকা, navigation): (বই, শিরোনাম) → কেন বাদ
REJECTED_PIECES = {
    ("chaturdashpadi", "Remaining"): "a list of the titles of the sonnets the source did not transcribe "
                                     "(navigation, not verse)",
}

# পাঠ ০৮-এর সারণির জন্য বাংলায় (ইংরেজি মূল তথ্য ওপরের তালিকায়)
PUBLISHED_BN = {
    "galpaguchchha1": "গল্পগুলো পত্রিকায় ১৮৮৪ থেকে ১৮৯০-এর দশকে; সংকলন ১৯০০–১৯০১; বিশ্বভারতী সংস্করণ ১৯২৬",
    "lipika": "১৯২২", "kalpana": "১৯০০", "chaturdashpadi": "১৮৬৬",
    "rasamanjari": "অষ্টাদশ শতক (১৭৬০-এর আগে)", "aboltabol": "১৯২৩",
    "hajabarala": "সন্দেশ পত্রিকায় ধারাবাহিক, ১৯২১ থেকে, লেখকের মৃত্যুর (১৯২৩) আগে",
}
WHY_BN = {
    "RabindranathTagore_Songs_Bhanusimha": "গানগুলো প্রথম ছাপা ১৮৮৪-তে, কিন্তু রবীন্দ্রনাথ পরের সংকলনে (কিছু ১৯৩০-এর পরে) "
                                           "সেগুলো বদলেছেন, আর এই লেখা হয়তো বদলানো সংস্করণের: এই পাঠ ১৯৩০-এর আগে "
                                           "প্রকাশিত, তা দেখানো যায়নি",
    "RabindranathTagore_Poetry_Punashcha": "প্রথম প্রকাশ ১৯৩২: যুক্তরাষ্ট্রে ২০২৮-এর আগে public domain নয়",
    "RabindranathTagore_Songs_Puja": "গান ১৯৪১ পর্যন্ত লেখা, গীতবিতানে সংকলিত ১৯৩১ থেকে: প্রতিটি গান ১৯৩০-এর আগে "
                                     "প্রকাশিত, তা দেখানো যায়নি",
    "RabindranathTagore_Songs_Swadesh": "পূজার মতোই: প্রতিটি গান ১৯৩০-এর আগে প্রকাশিত, তা দেখানো যায়নি",
    "SukumarRay_Poetry_KhaiKhai": "বই হিসেবে প্রথম প্রকাশ ১৯৫০-এ",
    "SukumarRay_Prose_PaglaDashu": "সংকলন ১৯৪০-এ; প্রতিটি গল্প ১৯৩০-এর আগে প্রকাশিত, তা এখানে দেখানো যায়নি",
    "AbanindranathTagore_Prose_BuroAngla": "প্রকাশ ১৯৪১: যুক্তরাষ্ট্রে ২০৩৭-এর আগে public domain নয়",
    "GaganendranathTagore_Prose_BhondorBahadur": "লেখকের মৃত্যুর পরে ৬০ বছরের বেশি, কিন্তু প্রথম প্রকাশের বছর "
                                                 "নিশ্চিত করা যায়নি",
    "Historic_Charyapad": "প্রাচীন বাংলা (ভাষার আলাদা এক স্তর), আর এই লেখা কোন সংস্করণ অনুসরণ করে তা লেখা নেই",
}

# ---------------------------------------------------------------- বড় সংকলনের নতুন বই
# প্রতিটি: id, উৎস, ফাইল, parser আর তার যুক্তি, শিরোনাম ও লেখক (বাংলা), লেখক (ইংরেজি), জীবনকাল, প্রথম প্রকাশ
# (ইংরেজি, বাংলা), কেন রাখা (ইংরেজি), কী ধরনের লেখা
TAGORE = ("রবীন্দ্রনাথ ঠাকুর", "Rabindranath Tagore", "1861-1941")
BANKIM = ("বঙ্কিমচন্দ্র চট্টোপাধ্যায়", "Bankim Chandra Chattopadhyay", "1838-1894")
SARAT = ("শরৎচন্দ্র চট্টোপাধ্যায়", "Sarat Chandra Chattopadhyay", "1876-1938")
MADHUSUDAN = ("মাইকেল মধুসূদন দত্ত", "Michael Madhusudan Dutt", "1824-1873")
SATYENDRANATH = ("সত্যেন্দ্রনাথ দত্ত", "Satyendranath Dutta", "1882-1922")
EARNALISM = "content/books/{}/raw/source.txt"


def _work(work_id, repo, files, parser, title, who, published, published_bn, why, kind, **args):
    author, author_en, years = who
    return {"id": work_id, "repo": repo, "files": files, "parser": parser, "args": args, "title": title,
            "author": author, "author_en": author_en, "author_years": years, "first_published": published,
            "first_published_bn": published_bn, "why_kept": why, "kind": kind}


NEW_WORKS = [
    _work("gora", "deep5050/RabiGuru", ["গোরা.md"], "gora", "গোরা", TAGORE,
          "serialised in Prabasi 1907-1909; book 1910", "প্রবাসী পত্রিকায় ধারাবাহিক ১৯০৭–১৯০৯; বই ১৯১০",
          "novel first published 1907-1910; author died 1941", "novel; each chapter is one piece"),
    _work("bouthakuranirhaat", "7shi/bou-thakuranir_haat", ["all/bn.md"], "bou", "বৌ-ঠাকুরাণীর হাট", TAGORE,
          "serialised in Bharati 1881-1882; book 1883", "ভারতী পত্রিকায় ধারাবাহিক ১৮৮১–১৮৮২; বই ১৮৮৩",
          "novel first published 1881-1883; author died 1941", "novel; each chapter is one piece"),
    _work("indira", "ronik18/earnalism-digital-library", [EARNALISM.format("bn-060")], "earnalism", "ইন্দিরা",
          BANKIM, "1873 (Bangadarshan); this text is the 1873 version", "১৮৭৩ (বঙ্গদর্শন); এই লেখা ১৮৭৩-এর রূপ",
          "first published 1873; author died 1894", "novella; each chapter is one piece"),
    _work("yugalanguriya", "ronik18/earnalism-digital-library", [EARNALISM.format("yugalanguriya")], "earnalism",
          "যুগলাঙ্গুরীয়", BANKIM, "1874 (Bangadarshan); in the book Upakatha, 1877",
          "১৮৭৪ (বঙ্গদর্শন); উপকথা বইয়ে ১৮৭৭", "first published 1874; author died 1894",
          "novella; each chapter is one piece"),
    _work("radharani", "ronik18/earnalism-digital-library", [EARNALISM.format("radharani")], "earnalism",
          "রাধারাণী", BANKIM, "1875 (Bangadarshan); in the book Upakatha, 1877",
          "১৮৭৫ (বঙ্গদর্শন); উপকথা বইয়ে ১৮৭৭", "first published 1875; author died 1894",
          "novella; each chapter is one piece"),
    _work("muchiram", "ronik18/earnalism-digital-library", [EARNALISM.format("muchiram-gurer-jibanchorit")],
          "earnalism", "মুচিরাম গুড়ের জীবনচরিত", BANKIM, "book 1884", "বই ১৮৮৪",
          "published by 1884; author died 1894", "satire, first two chapters only; each chapter is one piece"),
    _work("andharealo", "ronik18/earnalism-digital-library", [EARNALISM.format("bn-041")], "earnalism",
          "আঁধারে আলো", SARAT, "in the collection Mejdidi, 1915", "মেজদিদি সংকলনে, ১৯১৫",
          "published by 1915; author died 1938", "story in six chapters; each chapter is one piece",
          running_header="মেজদিদি"),
    _work("mahesh", "ronik18/earnalism-digital-library", [EARNALISM.format("bn-031")], "earnalism", "মহেশ", SARAT,
          "1922 (periodical Bangabani); collected in Harilakshmi, 1926",
          "১৯২২ (বঙ্গবাণী পত্রিকা); হরিলক্ষ্মী সংকলনে ১৯২৬", "first published 1922; author died 1938",
          "story in three chapters; each chapter is one piece", running_header="শরৎ-সাহিত্য-সংগ্রহ"),
    _work("tagore_stories", "gsurma/text_predictor", ["data/tagore/input.txt"], "stories",
          "গল্পগুচ্ছ (আরও গল্প), ভিখারিনী, করুণা", TAGORE,
          "each story's own year, 1877-1928 (see 'stories'); Galpaguchchha volumes 1900-1926",
          "প্রতিটি গল্পের নিজের বছর, ১৮৭৭–১৯২৮ ('stories' দেখো)",
          "every kept story was first published before 1930 (year per story); author died 1941",
          "short stories; each story is one piece; some stories in this source are shortened"),
]

# ---------------------------------------------------------------- gsurma/text_predictor: গল্প আর প্রথম প্রকাশ
# শিরোনাম (উৎসে যেমন) → (বছর, কোথায়); বছরগুলো রবীন্দ্রনাথের গল্পের প্রচলিত কালানুক্রম থেকে
_SADHANA, _BHARATI, _SABUJ = "Sadhana", "Bharati", "Sabuj Patra"
STORIES = {
    "মুকুট": (1885, "Balak"), "অনধিকার প্রবেশ": (1894, _SADHANA), "মেঘ ও রৌদ্র": (1894, _SADHANA),
    "প্রায়শ্চিত্ত": (1894, _SADHANA), "বিচারক": (1894, _SADHANA), "নিশীথে": (1895, _SADHANA),
    "আপদ": (1895, _SADHANA), "দিদি": (1895, _SADHANA), "মানভঞ্জন": (1895, _SADHANA), "ঠাকুরদা": (1895, _SADHANA),
    "প্রতিহিংসা": (1895, _SADHANA), "ক্ষুধিত পাষাণ": (1895, _SADHANA), "অতিথি": (1895, _SADHANA),
    "ইচ্ছাপূরণ": (1895, "Sakha o Sathi"), "দুরাশা": (1898, _BHARATI), "পুত্রযজ্ঞ": (1898, _BHARATI),
    "ডিটেকটিভ": (1898, _BHARATI), "অধ্যাপক": (1898, _BHARATI), "রাজটিকা": (1898, _BHARATI),
    "মণিহারা": (1898, _BHARATI), "দৃষ্টিদান": (1898, _BHARATI), "সদর ও অন্দর": (1900, ""), "উদ্ধার": (1900, ""),
    "দুর্বুদ্ধি": (1900, ""), "ফেল": (1900, ""), "শুভদৃষ্টি": (1900, ""), "যজ্ঞেশ্বরের যজ্ঞ": (1900, ""),
    "উলুখড়ের বিপদ": (1900, ""), "প্রতিবেশিনী": (1900, ""), "নষ্টনীড়": (1901, _BHARATI),
    "দর্পহরণ": (1902, ""), "মাল্যদান": (1903, ""), "কর্মফল": (1903, ""), "গুপ্তধন": (1907, ""),
    "মাস্টারমশায়": (1907, ""), "রাসমণির ছেলে": (1911, ""), "পণরক্ষা": (1911, ""),
    "হালদারগোষ্ঠী": (1914, _SABUJ), "হৈমন্তী": (1914, _SABUJ), "বোষ্টমী": (1914, _SABUJ),
    "স্ত্রীর পত্র": (1914, _SABUJ), "ভাইফোঁটা": (1914, _SABUJ), "শেষের রাত্রি": (1914, _SABUJ),
    "অপরিচিতা": (1914, _SABUJ), "তপস্বিনী": (1917, _SABUJ), "পয়লা নম্বর": (1917, _SABUJ),
    "পাত্র ও পাত্রী": (1917, _SABUJ), "নামঞ্জুর গল্প": (1925, ""), "সংস্কার": (1928, ""), "বলাই": (1928, ""),
    "ভিখারিনী": (1877, _BHARATI), "করুণা": (1877, _BHARATI + ", serialised 1877-1878; unfinished novel"),
}
# শিরোনাম → (প্রথম প্রকাশ, কেন বাদ, কেন বাদ (বাংলা))
LEFT_OUT_STORIES = {
    "চিত্রকর": ("Bengali year 1336 (April 1929 to April 1930)",
                "the month of first publication is not established here, so publication before 1930 is not shown",
                "প্রথম প্রকাশ বঙ্গাব্দ ১৩৩৬-এ (এপ্রিল ১৯২৯ থেকে এপ্রিল ১৯৩০), মাস নিশ্চিত নয়: ১৯৩০-এর আগে, তা দেখানো যায়নি"),
    "চোরাই ধন": ("1933", "first published 1933", "প্রথম প্রকাশ ১৯৩৩"),
    "বদনাম": ("1941", "first published 1941", "প্রথম প্রকাশ ১৯৪১"),
    "প্রগতিসংহার": ("1941", "first published 1941", "প্রথম প্রকাশ ১৯৪১"),
    "শেষ পুরস্কার": ("after 1930", "a late sketch, first published after 1930", "শেষ দিকের খসড়া, প্রকাশ ১৯৩০-এর পরে"),
    "মুসলমানীর গল্প": ("1955", "written in 1941, first published 1955", "লেখা ১৯৪১-এ, প্রথম প্রকাশ ১৯৫৫-তে"),
}
# এই উৎসের গল্প ছোট সংকলনের এই বইগুলোতে থাকলে বাদ (শিরোনাম আর লেখা, দুই দিয়েই মেলানো)
STORIES_ALREADY_IN = ("galpaguchchha1", "lipika")

# ---------------------------------------------------------------- shuhanmirza/Bengali-Poem-Dataset
POEM_REPO = "shuhanmirza/Bengali-Poem-Dataset"
# শেষের বন্ধনীর বইয়ের নাম → (id, বইয়ের নাম, প্রথম প্রকাশ, বাংলায়)
TAGORE_BOOKS = {
    "কবি-কাহিনী কাব্যোপন্যাস": ("kabikahini", "কবি-কাহিনী", "1878", "১৮৭৮"),
    "বন-ফুল কাব্যোপন্যাস": ("banaphul", "বন-ফুল", "1880", "১৮৮০"),
    "কড়ি ও কোমল কাব্যগ্রন্থ": ("karikomal", "কড়ি ও কোমল", "1886", "১৮৮৬"),
    "চৈতালি কাব্যগ্রন্থ": ("chaitali", "চৈতালি", "1896", "১৮৯৬"),
    "চৈতালি": ("chaitali", "চৈতালি", "1896", "১৮৯৬"),
    "কণিকা কাব্যগ্রন্থ": ("kanika", "কণিকা", "1899", "১৮৯৯"),
    "শিশু কাব্যগ্রন্থ": ("shishu", "শিশু", "1903", "১৯০৩"),
    "গীতাঞ্জলি কাব্যগ্রন্থ": ("gitanjali", "গীতাঞ্জলি", "1910", "১৯১০"),
    "উৎসর্গ কাব্যগ্রন্থ": ("utsarga", "উৎসর্গ", "1914", "১৯১৪"),
    "শিশু ভোলানাথ কাব্যগ্রন্থ": ("shishubholanath", "শিশু ভোলানাথ", "1922", "১৯২২"),
    "'পূরবী' কাব্যগ্রন্থ": ("purabi", "পূরবী", "1925", "১৯২৫"),
}
# বাদ পড়া শেষ-ট্যাগ → (প্রথম প্রকাশ, কেন, বাংলায়); এখানে না থাকা সব ট্যাগ (আর ট্যাগহীন কবিতা) NO_BOOK-এর কারণে বাদ
TAGORE_LATE_BOOKS = {
    "খাপছাড়া কাব্যগ্রন্থ": ("1937", "first published 1937", "প্রথম প্রকাশ ১৯৩৭"),
    "প্রান্তিক কাব্যগ্রন্থ": ("1938", "first published 1938", "প্রথম প্রকাশ ১৯৩৮"),
    "আরোগ্য কাব্যগ্রন্থ": ("1941", "first published 1941", "প্রথম প্রকাশ ১৯৪১"),
    "শেষ লেখা কাব্যগ্রন্থ": ("1941", "first published 1941", "প্রথম প্রকাশ ১৯৪১"),
    "স্ফুলিঙ্গ": ("1945", "first published 1945", "প্রথম প্রকাশ ১৯৪৫"),
    "স্ফুলিঙ্গ হতে সংগৃহীত": ("1945", "first published 1945", "প্রথম প্রকাশ ১৯৪৫"),
    "কাব্যগ্রন্থঃ সঞ্চয়িতা": ("1931", "the anthology Sanchayita, 1931; the poems' own books are not named",
                               "সঞ্চয়িতা সংকলন, ১৯৩১; কবিতাগুলোর নিজের বই বলা নেই"),
    "ভানুসিংহ ঠাকুরের পদাবলী কাব্যগ্রন্থ": ("1884", LEFT_OUT[0][4], WHY_BN[LEFT_OUT[0][0]]),
    '"ভগ্নহৃদয়" গ্রন্থ থেকে': ("1881", "a song of the verse drama Bhagnahriday (1881) that Tagore also put, "
                                           "revised like the Bhanusimha songs, into Gitabitan (from 1931): this text "
                                           "may follow the later version",
                                "গীতিকাব্য ভগ্নহৃদয়ের (১৮৮১) একটি গান, যা রবীন্দ্রনাথ গীতবিতানেও (১৯৩১ থেকে) রেখেছেন; "
                                "এই লেখা হয়তো পরের রূপের"),
    "অনুবাদ কবিতা": ("not stated", "translations; book and year not stated", "অনুবাদ; বই আর বছর বলা নেই"),
    "অনূদিত কবিতা": ("not stated", "translations; book and year not stated", "অনুবাদ; বই আর বছর বলা নেই"),
}
NO_BOOK = ("not stated", "no book is named (only a date of writing, a place, or nothing): publication before 1930 is "
           "not shown", "কোনো বইয়ের নাম নেই (কেবল লেখার তারিখ, জায়গা, বা কিছুই না): ১৯৩০-এর আগে প্রকাশ দেখানো যায়নি")
# পুরো কবির কবিতা রাখা: কবি (উৎসে ফোল্ডারের নাম) → (id, শিরোনাম, লেখক, প্রকাশ, প্রকাশ (বাংলা), কেন)
POETS = {
    "মাইকেল মধুসূদন দত্ত": (
        "madhusudan", "মধুসূদনের কবিতা ও কাব্যাংশ", MADHUSUDAN,
        "his books 1860-1866 (Tilottamasambhab 1860, Meghnadbadh 1861, Brajangana 1861, Birangana 1862, "
        "Chaturdashpadi 1866); the other poems in periodicals and in the collected works and biography of the 1890s",
        "তাঁর বই ১৮৬০–১৮৬৬ (তিলোত্তমাসম্ভব, মেঘনাদবধ, ব্রজাঙ্গনা, বীরাঙ্গনা, চতুর্দশপদী); বাকি কবিতা পত্রিকায় আর "
        "১৮৯০-এর দশকের রচনাবলি ও জীবনীতে",
        "author died 1873; everything here was printed in the 19th century"),
    "সত্যেন্দ্রনাথ দত্ত": (
        "satyendranath", "সত্যেন্দ্রনাথ দত্তের কবিতা", SATYENDRANATH,
        "his books 1900-1922 and the posthumous collections of 1923 and 1924",
        "তাঁর বই ১৯০০–১৯২২ আর মৃত্যুর পরের সংকলন ১৯২৩ ও ১৯২৪", "author died 1922; his books appeared 1900-1924"),
}

# ---------------------------------------------------------------- বড় সংকলনে যা পুরোটা বাদ
LEFT_OUT_FULL = [
    ("majantali/gitabitan", "songs/*.txt, metadata.csv", TAGORE[1], TAGORE[2], "composition years 1873-1941",
     "metadata.csv's 'year' is the year of composition (the repository's own listing heads that column রচনাকাল) "
     "and no column names the book or periodical a song was printed in, so publication before 1930 is not shown "
     "song by song; the texts themselves are public domain (no licence file in the repository)",
     "metadata.csv-র 'year' রচনাকাল (repository-র নিজের তালিকায় কলামের নাম তা-ই), কোন বই বা পত্রিকায় গানটি ছাপা তা "
     "কোনো কলামে নেই: প্রতিটি গান ১৯৩০-এর আগে প্রকাশিত, তা দেখানো যায়নি"),
    (POEM_REPO, "dataset/<other poets>/", "other poets", "various", "various",
     "only Rabindranath Tagore's poems tagged with a pre-1930 book, Michael Madhusudan Dutt and Satyendranath Dutta "
     "were checked; the other poets died after 1965, or their poems' publication is not named",
     "কেবল রবীন্দ্রনাথের ১৯৩০-এর আগের বইয়ের নাম-দেওয়া কবিতা, মধুসূদন আর সত্যেন্দ্রনাথ দেখা হয়েছে; বাকি কবিদের "
     "মৃত্যু ১৯৬৫-র পরে, বা কবিতার প্রকাশ বলা নেই"),
]
