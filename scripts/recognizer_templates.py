"""Templates and slot lists for scripts/build_recognizer_training.py.

A constraint sentence becomes *global* when wrapped in a standing form (explicit marker, scope
word, or a wish about the user) and *task* when tied to one reply ("For this answer only", or
attached to a concrete request). The hand-crafted slots cover reply-shaping wishes that the
benchmark registries lack (tone, persona, language, units, address, facts about the user), and
cue-word traps: sentences with "always", "from now on", a language or a persona that set no rule.
Written by the same author as rea_core/data/recognizer_fresh_test.jsonl, before training but after
that set: the fresh-set numbers are therefore read as optimistic (docs/recognizer_training_set.md).
"""

from __future__ import annotations

import random
import re

STANDING = [
    "From now on: {c}",
    "From now on, {lc}",
    "Going forward, {lc}",
    "For the rest of our conversation, {lc}",
    "In all your replies, {lc}",
    "Until I say otherwise, {lc}",
    "Here's a rule for this whole chat: {c}",
    "{c} Do this in every answer you give me.",
    "{c} Keep doing that in all of your future responses.",
    "Whatever I ask, {lc}",
    "Throughout our conversation, {lc}",
    "For everything that follows, {lc}",
    "Please remember this for all later answers: {c}",
    "A standing request: {c}",
    "{c} This applies to everything you write from here on.",
    "Each time you answer me, {lc}",
    "One rule for all your messages: {c}",
    "{c} Please stick to this for the whole session.",
]
ONE_OFF = [
    "For this answer only, {lc} {task}",
    "{task} {c}",
    "{task} {c}",
    "Just this once: {lc} {task}",
    "In your next reply, {lc} {task}",
    "{c} {task}",
    "{task} For this one, {lc}",
    "Only for this question: {lc} {task}",
]
TASKS = [
    "Write a short poem about the sea.",
    "Explain how vaccines work.",
    "Describe your ideal weekend.",
    "What are the benefits of regular exercise?",
    "Summarize the causes of World War I.",
    "Write a product description for a smart water bottle.",
    "Give me tips for a job interview.",
    "Tell me about the history of coffee.",
    "Write a cover letter for a barista job.",
    "Explain the difference between weather and climate.",
    "Draft an email asking my manager for a day off.",
    "Describe how a bill becomes law in the US.",
    "Write a story about a lost robot.",
    "What should I pack for a beach trip?",
    "Explain recursion to a beginner.",
    "Write a review of a fictional Italian restaurant.",
    "How do solar panels work?",
    "Suggest a name for my bakery.",
    "Write a haiku about winter.",
    "Compare cats and dogs as pets.",
    "Plan a three-day trip to Rome.",
    "Write a thank-you note to my neighbor.",
    "What is machine learning?",
    "Describe the water cycle.",
    "Write a limerick about a forgetful wizard.",
    "Why do leaves change color in autumn?",
]

TONES = [
    "formal",
    "casual",
    "friendly",
    "playful",
    "serious",
    "professional",
    "warm",
    "blunt",
    "upbeat",
    "calm",
    "neutral",
    "enthusiastic",
    "polite",
    "gentle",
    "witty",
]
PERSONAS = [
    "a pirate",
    "a Shakespearean actor",
    "a sports commentator",
    "a grumpy cat",
    "a medieval knight",
    "a cowboy",
    "a noir detective",
    "a kind grandmother",
    "a robot",
    "a tour guide",
    "a drill sergeant",
    "a surfer",
    "a wise old wizard",
    "a game show host",
    "a 1950s newscaster",
    "a cheerful kindergarten teacher",
    "Sherlock Holmes",
    "a Victorian butler",
]
LANGS = [
    "French",
    "Spanish",
    "German",
    "Italian",
    "Portuguese",
    "Dutch",
    "Japanese",
    "Korean",
    "Polish",
    "Swedish",
    "Turkish",
    "Greek",
    "Russian",
    "Hindi",
]
UNITS = [
    "metric units",
    "imperial units",
    "Celsius",
    "Fahrenheit",
    "24-hour time",
    "the DD/MM/YYYY date format",
    "ISO 8601 dates",
    "US dollars",
    "euros",
    "kilometres",
    "British spelling",
    "American spelling",
    "the Oxford comma",
    "SI units",
    "pounds sterling",
]
NAMES = [
    "Captain",
    "Dr. Lee",
    "Sam",
    "boss",
    "Professor Kim",
    "Your Majesty",
    "Coach",
    "Ms. Rivera",
    "chief",
    "Alex",
    "Maestro",
    "Detective",
]
FACTS = [
    "I'm vegan",
    "I'm allergic to nuts",
    "I live in Australia",
    "I'm based in Tokyo",
    "I'm a high school teacher",
    "I'm a beginner programmer",
    "I'm colorblind",
    "I'm diabetic",
    "I work night shifts",
    "I have two small kids",
    "I'm learning Spanish",
    "I use a Mac",
    "I'm on a tight budget",
    "I'm a lawyer",
    "I live in India",
    "I'm visually impaired and use a screen reader",
    "I'm gluten-free",
    "I'm in the UTC+2 time zone",
]
STYLES = [
    "keep your answers short",
    "give me the bottom line first",
    "use headings in long answers",
    "skip the small talk",
    "avoid jargon",
    "end with a one-sentence recap",
    "include an example",
    "cite your sources",
    "be more concise",
    "go into more detail",
    "use plain language",
    "put code in code blocks",
    "number your steps",
    "ask me a question back at the end",
    "use simple words",
    "add a short summary on top",
    "don't use exclamation marks",
    "don't start with 'Great question'",
]
SCOPES = [
    "from now on",
    "for the rest of our chat",
    "throughout our conversation",
    "going forward",
    "in every reply",
    "until I say otherwise",
    "in all your answers",
    "whenever you answer me",
    "for everything you write to me",
    "while we talk",
    "from here on",
]

RELATIVES = [
    "My boss",
    "My mom",
    "My teacher",
    "My roommate",
    "My neighbor",
    "My brother",
    "My coworker",
    "My grandpa",
    "My best friend",
    "My professor",
]
HABITS = [
    "talks like a pirate",
    "writes in all caps",
    "replies in French",
    "ends every email with 'cheers'",
    "uses too many emojis",
    "speaks very formally",
    "answers questions with questions",
    "starts every sentence with 'so'",
    "signs off with 'xoxo'",
    "keeps his messages under ten words",
    "writes dates the American way",
    "uses bullet points for everything",
    "never uses punctuation",
    "always says 'basically'",
]
LIFE = [
    "working from home",
    "going to bed earlier",
    "eating less sugar",
    "learning the piano",
    "running every morning",
    "the team lead",
    "saving for a house",
    "vegetarian",
    "taking the train to work",
    "in charge of the budget",
]
REMARKS = [
    "it's freezing today",
    "the rent is crazy",
    "I love it here",
    "the trains are always late",
    "summer is so short",
]
QUESTIONS_ABOUT = [
    "Can you speak {lang}?",
    "Do you know any {lang}?",
    "Why is {lang} so hard to learn?",
    "How many people speak {lang}?",
    "Do you always answer in English?",
    "Can you write in {lang} too?",
    "Is {lang} grammar harder than English grammar?",
]


def lcfirst(text: str) -> str:
    return text[:1].lower() + text[1:] if text[1:2].islower() or len(text) < 2 else text


def standing_of(sentence: str) -> str:
    """A benchmark constraint about "the response" reworded about every reply."""
    s = re.sub(r"\b[Yy]our (entire )?response\b", "each of your responses", sentence)
    s = re.sub(r"\b[Tt]he (entire )?response\b", "every response", s)
    s = re.sub(r"\b[Yy]our answer\b", "each of your answers", s)
    return s[:1].upper() + s[1:]


def _row(text: str, label: str, group: str) -> dict:
    return {"text": text, "label": label, "source": "handcrafted", "group": group}


def handcrafted_rows(rng: random.Random) -> list[dict]:
    """Standing and one-off wishes per slot value (one group per value), then cue-word traps."""
    rows = []
    pick = rng.choice
    for v in TONES:
        g = f"tone:{v}"
        rows += [
            _row(f"Keep a {v} tone with me {pick(SCOPES)}.", "global", g),
            _row(f"Please be {v} in all your answers.", "global", g),
            _row(f"I'd like you to sound {v} whenever you reply.", "global", g),
            _row(f"Write a {v} email to my landlord about the broken heater.", "task", g),
            _row(f"Rewrite this in a {v} tone: 'send me the file now'.", "task", g),
            _row(f"What does a {v} tone mean in business writing?", "ordinary", g),
        ]
    for v in PERSONAS:
        g = f"persona:{v}"
        rows += [
            _row(f"Talk like {v} {pick(SCOPES)}.", "global", g),
            _row(f"Whatever I ask, answer as {v} would.", "global", g),
            _row(f"Pretend to be {v} while we chat.", "global", g),
            _row(f"Tell me a joke as {v} would.", "task", g),
            _row(f"Write a short poem in the voice of {v}.", "task", g),
            _row(f"My kids love it when I talk like {v} at dinner.", "ordinary", g),
        ]
    for v in LANGS:
        g = f"lang:{v}"
        rows += [
            _row(f"Reply to me in {v} {pick(SCOPES)}.", "global", g),
            _row(f"Talk to me in {v}, I'm practicing.", "global", g),
            _row(f"Use {v} for every answer you give me.", "global", g),
            _row(f"Translate 'where is the station' into {v}.", "task", g),
            _row(f"Write one sentence in {v} about cats.", "task", g),
            _row(pick(QUESTIONS_ABOUT).format(lang=v), "ordinary", g),
        ]
    for v in UNITS:
        g = f"unit:{v}"
        rows += [
            _row(f"Use {v} {pick(SCOPES)}.", "global", g),
            _row(f"Everything you write should use {v}.", "global", g),
            _row(f"Convert this to {v} for me: 5 miles, 70 degrees, March 3rd 2024.", "task", g),
            _row(f"Why do some countries still not use {v}?", "ordinary", g),
        ]
    for v in NAMES:
        g = f"name:{v}"
        rows += [
            _row(f"Call me {v}.", "global", g),
            _row(f"Please address me as {v} {pick(SCOPES)}.", "global", g),
            _row(f"Write a birthday card for {v}.", "task", g),
            _row(f"Everyone at work calls me {v}, it's a long story.", "ordinary", g),
        ]
    for v in FACTS:
        g = f"fact:{v}"
        rows += [
            _row(f"{v}, so keep that in mind for everything you suggest.", "global", g),
            _row(f"For everything that follows, remember that {lcfirst(v)}.", "global", g),
            _row(f"Just so you know, {lcfirst(v)}; please take it into account in all your answers.", "global", g),
            _row(f"{v} and honestly it's been a long week.", "ordinary", g),
            _row(f"{v}. Can you suggest one idea for dinner tonight?", "task", g),
        ]
    for v in STYLES:
        g = f"style:{v}"
        rows += [
            _row(f"Please {v} {pick(SCOPES)}.", "global", g),
            _row(f"{v[:1].upper() + v[1:]} in every response.", "global", g),
            _row(f"For this question only, {v}: {pick(TASKS)}", "task", g),
        ]
    for rel in RELATIVES:
        rows.append(_row(f"{rel} always {pick(HABITS).replace('never ', 'never ')}.", "ordinary", f"trap:{rel}"))
        rows.append(_row(f"{rel} {pick(HABITS)}. Is that normal?", "ordinary", f"trap:{rel}"))
    for v in LIFE:
        rows.append(_row(f"From now on I'm {v}, wish me luck!", "ordinary", f"trap:life:{v}"))
        rows.append(_row(f"Going forward I'll be {v}. Any advice?", "ordinary", f"trap:life:{v}"))
    for v in REMARKS:
        rows.append(
            _row(
                f"I live in {pick(['Canada', 'Norway', 'London', 'Texas', 'Sydney'])} and {v}.",
                "ordinary",
                f"trap:remark:{v}",
            )
        )
    return rows
