"""Hand-written table of the follow-up benchmark (benchmarks/make_followups.py, docs/followups.md).

Each entry is ``(family, distance, referent, follow_up)``. The referent is ``SG(session, pair,
prefix)`` (ShareGPT), ``CC(conversation, message, prefix)`` (Chit Chat) or ``H(user, reply)``
(written for this set). ``distance`` is (index of the follow-up turn) - (index of the referent).
The follow-ups were written for this set; none is taken from benchmarks/make_backrefs.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from make_backrefs import CC, SG  # noqa: E402
from make_backrefs import Hand as H

FAMILIES = (
    "pronoun_edit",
    "positional",
    "slot_swap",
    "likewise",
    "bare_edit",
    "vague_pointer",
    "compare",
    "clarify",
    "continue",
    "correction",
    "constraint",
    "reformat",
    "ack_question",
)
# Families that have a close relative among the old back-reference kinds (docs/backrefs.md); the
# split draws half of these and half of the others into the development half.
OLD_LIKE = ("pronoun_edit", "positional", "slot_swap", "likewise", "bare_edit", "vague_pointer")

CASES = [
    # --- pronoun_edit: a pronoun names the earlier output, plus an edit --------------------------
    (
        "pronoun_edit",
        1,
        H(
            "Write a two-line birthday message for my coworker Priya, who's turning 30.",
            "Happy 30th, Priya! Here's to a year of great coffee, short meetings and everything "
            "you've been hoping for.",
        ),
        "can you make it rhyme?",
    ),
    (
        "pronoun_edit",
        2,
        SG(529, 0, "write a sonnet about a man named nigel"),
        "ok now make it funnier, he's going to read it out at his own party lol",
    ),
    (
        "pronoun_edit",
        3,
        SG(1174, 0, "write a christmas card for my girlfriend"),
        "Could you make it a bit less cheesy? We've only been dating for two months.",
    ),
    (
        "pronoun_edit",
        1,
        H(
            "Write a short bio for my Etsy shop. I make candles from recycled wine bottles.",
            "Hi, I'm Jess! I turn empty wine bottles into hand-poured soy candles in my garage studio "
            "in Portland. Every bottle is cut, sanded and filled by hand, so no two are quite alike. "
            "Light one up and give a good bottle a second life.",
        ),
        "put it in third person",
    ),
    (
        "pronoun_edit",
        4,
        SG(10967, 0, "write a script to convivence manager"),
        "can u make it sound less like im apologising the whole time",
    ),
    (
        "pronoun_edit",
        5,
        SG(1859, 0, "Write me a cover letter for an UX internship"),
        "Rewrite it for a product design role at Spotify instead, please.",
    ),
    (
        "pronoun_edit",
        1,
        SG(575, 0, "Write me a Dall-E 2 prompt"),
        "Make it more hopeful, like the city is slowly recovering.",
    ),
    (
        "pronoun_edit",
        2,
        H(
            "Give me a caption for a photo of my dog asleep on the couch.",
            '"Professional napper. Unpaid intern of the couch."',
        ),
        "Hmm, turn it into a pun instead?",
    ),
    (
        "pronoun_edit",
        6,
        SG(10589, 0, "write a poem titled"),
        "Could you make it kinder? I might actually show it to him at the offsite.",
    ),
    (
        "pronoun_edit",
        3,
        H(
            "Write a tweet announcing that our bakery now opens at 7am.",
            "Early birds, rejoice! Starting Monday, Crumb & Co. opens its doors at 7am. Fresh "
            "croissants, hot coffee and first pick of the sourdough. See you bright and early!",
        ),
        "could you squeeze it into 100 characters and add an emoji",
    ),
    ("pronoun_edit", 1, SG(11074, 0, "Write the parable of the lost sheep"), "lol make him even angrier"),
    (
        "pronoun_edit",
        4,
        H(
            "Write a thank-you note to my neighbor who watered my plants while I was away.",
            "Dear Mrs. Alvarez, thank you so much for looking after my plants these past two weeks. "
            "I came home to a jungle instead of a graveyard, and I know that took real effort in this "
            "heat. Please enjoy the jar of lemon curd, and let me know when I can return the favor!",
        ),
        "we're pretty close actually, can you loosen it up a bit?",
    ),
    (
        "pronoun_edit",
        2,
        CC(420, 1, "what would you do if unicorns were real?"),
        "haha turn that into a little bedtime story for my niece",
    ),
    (
        "pronoun_edit",
        7,
        SG(1758, 0, "write a product description for a pickleball"),
        "Could you rework it for a kids' version with a rainbow pattern?",
    ),
    (
        "pronoun_edit",
        5,
        H(
            "Write a two-sentence description of our running club for the town newsletter.",
            "The Riverside Runners meet every Saturday at 8am by the old boathouse for an easy 5k "
            "along the river path. All paces are welcome, and there's always coffee afterwards.",
        ),
        "Can you translate it into French? Half the town is francophone.",
    ),
    (
        "pronoun_edit",
        9,
        SG(1779, 0, "write a poem about jeff"),
        "could you give it a happy ending where he finally meets someone",
    ),
    # --- positional: picks an item by its place in an earlier list -------------------------------
    (
        "positional",
        1,
        SG(1804, 0, "suggest some group names"),
        "we're going with number 4. can you come up with a motto for the team?",
    ),
    (
        "positional",
        2,
        H(
            "Suggest three weekend getaways from Chicago by car.",
            "1. Door County, Wisconsin: lighthouses, cherry orchards and fish boils, about 4 hours.\n"
            "2. Galena, Illinois: a preserved 1800s main street and rolling hills, about 3 hours.\n"
            "3. Lake Geneva, Wisconsin: a lakeshore walking path and boat tours, under 2 hours.",
        ),
        "the middle option sounds perfect, where should we stay?",
    ),
    ("positional", 1, SG(9960, 0, "Give me 10 unique names"), "i'm torn between the top two. which would you pick?"),
    (
        "positional",
        3,
        H(
            "Give me three options for a first date that isn't dinner.",
            "1. A pottery or painting drop-in class, so you have something to laugh about together.\n"
            "2. A walk through a farmers' market with a coffee in hand.\n"
            "3. Trivia night at a local bar, playing as a team of two.",
        ),
        "Honestly the last one. Any tips so it doesn't get awkward if we're terrible?",
    ),
    (
        "positional",
        4,
        SG(1431, 0, "suggest some good names for film news"),
        "Let's go with #11. Can you describe a logo concept for it in words?",
    ),
    (
        "positional",
        1,
        SG(2101, 0, "Recommend cocktails made by shaking"),
        "How strong is the second one compared to a glass of wine?",
    ),
    (
        "positional",
        5,
        H(
            "What are three budget phones worth looking at right now?",
            "1. Google Pixel 7a: the best camera at its price and clean software.\n"
            "2. Samsung Galaxy A54: a bright screen, long software support and good battery life.\n"
            "3. Motorola Moto G Power: very cheap, with a battery that easily lasts two days.",
        ),
        "Tell me more about the bottom one on your list. Does it take decent photos at night?",
    ),
    (
        "positional",
        1,
        SG(10368, 0, "write simple mobile app games"),
        "i'd like to build game 2 first, what would the how-to-play screen say?",
    ),
    (
        "positional",
        1,
        CC(1748, 213, "What modern pop artists do you like?"),
        "oh I love the first guy you named! what's your favorite song by him?",
    ),
    (
        "positional",
        6,
        SG(1505, 0, "What are some cool league team names"),
        "The fifth one is perfect for our group, what colors should our banner use?",
    ),
    (
        "positional",
        3,
        H(
            "Name three beginner-friendly houseplants.",
            "Pothos, snake plant and ZZ plant. All three tolerate low light, weeks of forgotten "
            "watering and the occasional draft.",
        ),
        "where should i put the middle one, my flat only has north-facing windows",
    ),
    (
        "positional",
        4,
        SG(10780, 0, "What are Some places to visit in Bhuj"),
        "How much time do I need for the first place on your list?",
    ),
    (
        "positional",
        2,
        SG(1571, 0, "Write five open-ended questions"),
        "use question three as the opener for a podcast episode intro, maybe 3 sentences",
    ),
    (
        "positional",
        7,
        H(
            "Give me four ideas for a science fair project for a 9-year-old.",
            "1. Which paper towel brand absorbs the most water?\n"
            "2. Do plants grow better with music?\n"
            "3. How does salt change the freezing point of water?\n"
            "4. Which homemade volcano recipe erupts highest?",
        ),
        "we picked the third idea! what materials do we need to buy?",
    ),
    (
        "positional",
        1,
        SG(39, 0, "list the largest outdoor retailers"),
        "is #7 actually a retailer? i thought they just make jackets",
    ),
    (
        "positional",
        8,
        H(
            "What are some good options for a 10-year wedding anniversary gift?",
            "Traditionally, the tenth anniversary is tin or aluminium. A few ideas: an engraved tin "
            "keepsake box with a note inside, a framed map of the city where you met printed on "
            "aluminium, or a weekend away with the tickets tucked inside a tin. If your partner "
            "prefers experiences, a cooking class for two also works.",
        ),
        "the second idea you gave, where can I get that printed?",
    ),
    # --- slot_swap: the earlier request again with one slot changed, the rest left implicit ------
    (
        "slot_swap",
        1,
        H(
            "How much rice should I cook for four people?",
            "About 1 1/2 cups of uncooked rice (roughly 300 g) for four people as a side, or 2 cups if "
            "rice is the main part of the meal. It roughly triples in volume as it cooks.",
        ),
        "and for a family of six?",
    ),
    (
        "slot_swap",
        2,
        H(
            "What should I pack for a week in Edinburgh in July?",
            "Layers: the weather changes fast. Bring a light waterproof jacket, a warm sweater or "
            "fleece, jeans or trousers, a few T-shirts, comfortable walking shoes that can handle "
            "cobbles and rain, and a compact umbrella. Evenings can drop to 12 C even in summer.",
        ),
        "what about in january?",
    ),
    (
        "slot_swap",
        1,
        H(
            "How long does it take to drive from Denver to Moab?",
            "About 5 1/2 hours (350 miles) via I-70 west and US-191 south, longer in winter or if you "
            "stop at Glenwood Springs along the way.",
        ),
        "from salt lake city?",
    ),
    ("slot_swap", 3, SG(635, 0, "explain what is mobile game publishing"), "now for a business student please"),
    (
        "slot_swap",
        4,
        H(
            "What's a good training plan to run my first 10k in 8 weeks?",
            "Run three times a week. Weeks 1-2: easy runs of 3-4 km plus one run-walk of 5 km. Weeks "
            "3-5: two easy 5 km runs and one long run growing from 6 to 8 km. Weeks 6-7: add 4 x 800 m "
            "at a faster pace on one day, long run up to 9-10 km. Week 8: cut back, two easy 4 km runs, "
            "then race day.",
        ),
        "If I only have 5?",
    ),
    (
        "slot_swap",
        1,
        H(
            "How much should I tip at a restaurant in the US?",
            "15-20% of the pre-tax bill is standard for table service, with 20% the norm for good "
            "service in most cities. For counter service, a dollar or two or 10% is appreciated but "
            "optional.",
        ),
        "in japan?",
    ),
    (
        "slot_swap",
        2,
        SG(201, 0, "Explain quantum computing in simple terms"),
        "what about for someone with a physics degree",
    ),
    (
        "slot_swap",
        3,
        H(
            "How many calories does an hour of swimming burn?",
            "Roughly 400-700 calories for a 70 kg (155 lb) adult, depending on stroke and pace: easy "
            "breaststroke sits near the low end, fast freestyle or butterfly near the top.",
        ),
        "cycling?",
    ),
    ("slot_swap", 1, CC(4218, 43, "Have you been to Europe and or Asia?"), "What about South America?"),
    (
        "slot_swap",
        5,
        H(
            "What's the best time of year to visit Kyoto?",
            "Late March to early April for cherry blossoms, or mid-November for autumn leaves. Both are "
            "busy, so book early. Early December and late May are quieter and still pleasant.",
        ),
        "and for hokkaido?",
    ),
    ("slot_swap", 2, SG(322, 0, "Explain the meaning of this proverb"), "now do 'every cloud has a silver lining'"),
    (
        "slot_swap",
        6,
        H(
            "How do I get from Vienna to Budapest by train?",
            "Direct Railjet trains leave Wien Hauptbahnhof roughly every two hours and take about 2 "
            "hours 40 minutes to Budapest-Keleti. Book on the OBB site a few weeks ahead for fares from "
            "about 15 euros.",
        ),
        "And to Prague, roughly how long?",
    ),
    (
        "slot_swap",
        4,
        H(
            "What size air conditioner do I need for a 300 square foot bedroom?",
            "About 7,000 BTU is enough for 300 square feet. Go up to 8,000 BTU if the room gets strong "
            "afternoon sun or sits above a kitchen.",
        ),
        "what if it's 550?",
    ),
    (
        "slot_swap",
        7,
        SG(298, 0, "Write the rules of American Football"),
        "could you do the version for my grandma who has never watched any sport at all?",
    ),
    (
        "slot_swap",
        1,
        H(
            "Is it safe to leave cooked chicken out overnight?",
            "No. Cooked chicken left out for more than two hours (one hour above 32 C / 90 F) should be "
            "thrown out, even if it smells fine, because bacteria can multiply to unsafe levels at room "
            "temperature.",
        ),
        "how about cooked rice??",
    ),
    (
        "slot_swap",
        9,
        H(
            "How much does it cost to renew a UK driving licence online?",
            "It's 14 pounds online through GOV.UK, or 17 pounds by post using a D1 form from the Post "
            "Office. If you're 70 or over, renewing is free.",
        ),
        "and for a passport, roughly?",
    ),
    # --- likewise: "ditto for X", "likewise for X", "one for X too" --------------------------------
    ("likewise", 1, H("Convert 5 miles to kilometers.", "5 miles is about 8.05 kilometers."), "likewise for 13.1"),
    (
        "likewise",
        2,
        SG(957, 0, "Give me 5 good Instagram captions"),
        "can you do a set like that for rain in Phoenix?",
    ),
    (
        "likewise",
        1,
        H(
            "What's the capital of Australia, and why isn't it Sydney?",
            "Canberra. When the colonies federated in 1901, Sydney and Melbourne were rivals for the "
            "title, so a compromise site was chosen between them, and Canberra was built as a planned "
            "capital, with Parliament moving there in 1927.",
        ),
        "ditto for Canada",
    ),
    (
        "likewise",
        3,
        SG(1689, 0, "Explain the moon landing to a 6 year old"),
        "now do the wright brothers' first flight the same way",
    ),
    (
        "likewise",
        1,
        H(
            "Write a one-line horoscope for Leo this week.",
            "Leo: your confidence opens a door this week, but let someone else take the lead on Thursday.",
        ),
        "Virgo too pls",
    ),
    ("likewise", 2, CC(194, 9, "What kind of sweets do you like?"), "and salty snacks, same question?"),
    (
        "likewise",
        4,
        SG(689, 0, "What are the lyrics of Twinkle"),
        "Can you also do the words for Baa Baa Black Sheep?",
    ),
    (
        "likewise",
        2,
        H(
            "What's the difference between affect and effect, in one sentence?",
            '"Affect" is usually the verb (the rain affected my mood) and "effect" is usually the '
            "noun (the rain had an effect on my mood).",
        ),
        "now do the same with lay vs lie",
    ),
    ("likewise", 1, SG(2137, 0, "tell me a joke about men"), "one about women too, to be fair"),
    (
        "likewise",
        5,
        H(
            "How long do I cook a 5 kg turkey?",
            "At 180 C (350 F), about 2 1/2 to 3 hours unstuffed, or 3 to 3 1/2 hours stuffed. It's done "
            "when the thickest part of the thigh reads 74 C (165 F). Let it rest under foil for at least "
            "30 minutes before carving.",
        ),
        "can I get the equivalent numbers for a 2 kg chicken?",
    ),
    (
        "likewise",
        3,
        SG(1365, 0, "Explain law of diminishing returns"),
        "and economies of scale, explained in that style?",
    ),
    (
        "likewise",
        6,
        H(
            "What are the visa rules for a US citizen visiting Brazil for two weeks?",
            "Since April 2025, US citizens need an e-visa for Brazil, even for short tourist trips. You "
            "apply online before you travel, with a passport valid for six months, a photo, a bank "
            "statement and a return ticket, and pay a fee of about 80 dollars. It's valid for ten years, "
            "for stays of up to 90 days a year.",
        ),
        "repeat that for Argentina please",
    ),
    (
        "likewise",
        7,
        SG(534, 0, "Tell me a 2-3 paragraphs story about Roie"),
        "could you write a matching one about a nurse named Talia who rescues a kitten?",
    ),
    (
        "likewise",
        1,
        H(
            "How do you say 'where is the train station' in German?",
            '"Wo ist der Bahnhof?" For the main station specifically, say "Wo ist der Hauptbahnhof?"',
        ),
        "likewise in dutch",
    ),
    ("likewise", 1, CC(1353, 7, "Do you play any instruments?"), "and sports, same question?"),
    (
        "likewise",
        9,
        SG(10462, 0, "What are 5 ways to make money online"),
        "Now give me the offline equivalent of that list, five ways for 2023 too",
    ),
    # --- bare_edit: an edit command with no pronoun ----------------------------------------------
    ("bare_edit", 1, SG(395, 0, "Write a happy new 2023 speech"), "shorter please"),
    (
        "bare_edit",
        1,
        H(
            "Write a message to my team saying the release is delayed to Friday.",
            "Hi all, a quick update: the 2.4 release is moving from Wednesday to Friday. We found an "
            "issue in the payment flow during final testing and want to fix it properly rather than "
            "patch it. Nothing changes for your current tasks. Thanks for your patience!",
        ),
        "more casual",
    ),
    ("bare_edit", 2, SG(10926, 0, "explain search engine optimization"), "less jargon, even simpler"),
    ("bare_edit", 1, SG(1853, 0, "write a review of an Italian Restaurant"), "Add emojis!!"),
    (
        "bare_edit",
        3,
        H(
            "Write an invitation for my son's 8th birthday party, dinosaur theme, Saturday at 2pm at our house.",
            "ROAR! You're invited to Leo's 8th birthday stomp! Join us for a dinosaur adventure on "
            "Saturday at 2pm at our house, with a fossil dig, dino games and a volcano cake. Please RSVP "
            "to Maria by Wednesday. Come dressed as your favorite dinosaur if you dare!",
        ),
        "Add a line about allergies and that parents are welcome to stay",
    ),
    ("bare_edit", 2, SG(178, 0, "write an intro paragraph to a mystery novel"), "darker, and in first person"),
    (
        "bare_edit",
        1,
        H(
            "Explain what an index fund is.",
            "An index fund is a mutual fund or ETF that buys all (or a representative sample) of the "
            "stocks in a market index, such as the S&P 500, so it tracks the market instead of trying "
            "to beat it. Because no one is picking stocks, fees are low, and over long periods most "
            "index funds outperform most actively managed funds after costs.",
        ),
        "again but for a 12 year old",
    ),
    (
        "bare_edit",
        4,
        SG(125, 0, "Write me a poem in the style of edgar allen poe"),
        "fewer stanzas, and a less gloomy ending",
    ),
    (
        "bare_edit",
        5,
        H(
            "Write a LinkedIn post announcing I've started a new job as a data engineer at Northwind.",
            "Some personal news: I've started a new role as Data Engineer at Northwind! I'm excited to "
            "help build the pipelines that power our analytics, and grateful to everyone at my previous "
            "team for three great years. Looking forward to learning a ton and connecting with new "
            "colleagues.",
        ),
        "less corporate, more human. mention my dog helped with the hunt",
    ),
    (
        "bare_edit",
        1,
        SG(1744, 0, "write me a poem about a grey day in Sausalito"),
        "Less rhyming, more like free verse",
    ),
    (
        "bare_edit",
        3,
        H(
            "Write a short apology email to a customer whose order arrived damaged.",
            "Dear Mr. Okafor, I'm very sorry that your order arrived damaged. That's not the experience "
            "we want for anyone. We've sent a replacement by express shipping at no cost, and you don't "
            "need to return the damaged item. Your tracking number is in a separate email. Thank you "
            "for your patience. Best, Hannah, Customer Care",
        ),
        "Warmer tone pls, and offer a 15% discount code too",
    ),
    ("bare_edit", 2, SG(10475, 0, "Write me a sales pitch for app"), "Punchier. Three sentences max."),
    (
        "bare_edit",
        6,
        SG(1315, 0, "Write an email to a student"),
        "Less stiff, he's a teenager, and sign off as Coach Reyes",
    ),
    (
        "bare_edit",
        4,
        H(
            "Describe a lighthouse in one paragraph for my short story.",
            "The lighthouse stood on the last black rock before the open sea, its white paint peeled to "
            "the bone by a century of salt wind. At night its beam swept the water in slow, patient "
            "circles, catching the crests of waves and the occasional startled gull, while below, the "
            "keeper's window glowed a small, steady yellow.",
        ),
        "from a child's point of view now, and in present tense",
    ),
    (
        "bare_edit",
        8,
        SG(10017, 0, "Write a poem about a user interface designer"),
        "Give the guy a name, and end on a hopeful note please",
    ),
    (
        "bare_edit",
        10,
        H(
            "Write a short speaker bio for me: I'm a pediatric dentist who runs marathons.",
            "Dr. Sam Lee is a pediatric dentist who has spent twelve years helping kids feel at ease in "
            "the dental chair. Outside the clinic, Sam has run fourteen marathons, including Boston "
            "twice, and believes the same patience that gets you to mile 26 gets a nervous five-year-old "
            "to open wide.",
        ),
        "Trim to 40 words, keep third person, and cut the running stuff",
    ),
    # --- vague_pointer: names the earlier exchange by a vague description -------------------------
    (
        "vague_pointer",
        6,
        H(
            "What's an easy recipe for fluffy pancakes?",
            "Whisk 1 1/2 cups flour, 3 1/2 tsp baking powder, 1 tbsp sugar and a pinch of salt. In "
            "another bowl mix 1 1/4 cups milk, 1 egg and 3 tbsp melted butter. Stir the wet into the "
            "dry until just combined (lumps are fine), rest 5 minutes, then cook 1/4 cup portions on "
            "a hot buttered pan until bubbles form, flip and cook 1 more minute.",
        ),
        "that breakfast thing from earlier, can I make the batter the night before?",
    ),
    (
        "vague_pointer",
        4,
        SG(1409, 0, "Create a meal plan for weeknight dinners"),
        "the week of food you planned for me: can you swap out the pork one?",
    ),
    (
        "vague_pointer",
        5,
        H(
            "How should I split my $3,200 monthly take-home pay into a budget?",
            "A simple starting point is 50/30/20: about $1,600 for needs (rent, groceries, utilities, "
            "insurance, minimum debt payments), $960 for wants (eating out, subscriptions, hobbies) "
            "and $640 for savings and extra debt payments. If your rent alone is over $1,200, shift "
            "some of the wants money to needs for now.",
        ),
        "Going back to the money breakdown you gave me: what if I get a $300 raise?",
    ),
    (
        "vague_pointer",
        5,
        SG(1165, 0, "How do I make pasta fagioli?"),
        "that soup you told me about earlier, can I freeze it?",
    ),
    (
        "vague_pointer",
        3,
        CC(331, 7, "Where in Canada are you from?"),
        "the city you said you're from, what's the best time of year to visit?",
    ),
    (
        "vague_pointer",
        6,
        SG(770, 0, "How to Negotiate and increase salary"),
        "re your tips on asking for more pay: what if my boss says there's no budget?",
    ),
    (
        "vague_pointer",
        2,
        H(
            "Give me a quick stretching routine for after sitting all day.",
            "Try this 5-minute routine: 1) neck rolls, 5 each way; 2) doorway chest stretch, 30 "
            "seconds; 3) standing hip flexor stretch, 30 seconds per side; 4) seated figure-four for "
            "the glutes, 30 seconds per side; 5) cat-cow on hands and knees, 10 slow rounds.",
        ),
        "the routine from a minute ago, can I do it at my desk?",
    ),
    (
        "vague_pointer",
        4,
        SG(208, 0, "Create a superhero with an amazing support power"),
        "the hero you invented earlier, what's his weakness?",
    ),
    (
        "vague_pointer",
        3,
        H(
            "Help me write a message to my gym cancelling my membership.",
            "Hello, I'd like to cancel my membership (member number 48213), effective at the end of "
            "this billing cycle. Please confirm the cancellation in writing and let me know if any "
            "final payment is due. Thank you for the past two years. Best regards, Chris Nolan",
        ),
        "for that cancellation note, do I need to send it by certified mail?",
    ),
    (
        "vague_pointer",
        2,
        CC(845, 8, "Where would you travel if you could go anywhere?"),
        "the trip you described a moment ago: which country would you start with?",
    ),
    (
        "vague_pointer",
        9,
        SG(10698, 0, "Plan a 5 day trip to Iceland"),
        "Back to that September itinerary: can we skip the spa day and add whale watching?",
    ),
    (
        "vague_pointer",
        5,
        H(
            "What's a good way to remember names when I meet people?",
            'Say the name back right away ("Nice to meet you, Dana"), use it once more in the '
            "conversation, and link it to something vivid: Dana with a dragon, or a colleague with "
            "the same name. When you walk away, repeat it to yourself once, and jot it down if it's "
            "someone you'll see again.",
        ),
        "That memory trick you mentioned earlier, does it work for faces too?",
    ),
    (
        "vague_pointer",
        6,
        SG(2412, 0, "Write a short summary of the movie"),
        "the film summary from before, is that plot actually right? I thought it was about two friends.",
    ),
    (
        "vague_pointer",
        1,
        H(
            "What are the pros and cons of leasing a car versus buying one?",
            "Leasing: lower monthly payments, a new car every few years and repairs mostly under "
            "warranty, but mileage limits, wear charges, and you own nothing at the end. Buying: "
            "higher payments at first, but no mileage limits, you can sell or keep it, and once it's "
            "paid off it's the cheapest option by far.",
        ),
        "About what you just said: do the numbers change for an electric one?",
    ),
    (
        "vague_pointer",
        10,
        SG(1364, 0, "give me 2 ideas for my blog about tech"),
        "those post ideas you gave me way back, can you outline the VR one?",
    ),
    (
        "vague_pointer",
        2,
        H(
            "How do I get a red wine stain out of a carpet?",
            "Blot (don't rub) as much as you can with a clean cloth. Pour a little cold water on it "
            "and blot again. Then mix one tablespoon of dish soap and one tablespoon of white vinegar "
            "in two cups of warm water, sponge it on, and blot until the stain lifts. For old stains, "
            "a paste of baking soda and water left to dry overnight helps.",
        ),
        "the cleaning tip from earlier, will it work on a wool rug?",
    ),
    # --- compare: evaluates or compares earlier items -------------------------------------------
    (
        "compare",
        1,
        H(
            "Give me three options for a cheap weeknight dinner for two.",
            "1. Black bean tacos with salsa and shredded cabbage.\n"
            "2. Egg fried rice with frozen peas and spring onions.\n"
            "3. Pasta with garlic, olive oil, chili flakes and a bagged salad.",
        ),
        "which of these is cheapest?",
    ),
    ("compare", 2, SG(492, 0, "Give me several new business ideas"), "Which needs less startup money?"),
    (
        "compare",
        1,
        H(
            "What are some good laptops for a college student under $800?",
            "1. Apple MacBook Air M1 (often on sale around $750): great battery and build.\n"
            "2. Acer Swift Go 14: a sharp OLED screen and light weight, around $700.\n"
            "3. Lenovo IdeaPad Slim 5: a solid keyboard and 16 GB RAM, around $650.",
        ),
        "ok and which of them is lightest to carry around all day",
    ),
    (
        "compare",
        3,
        SG(1305, 0, "How to improve my fashion style"),
        "out of those, which would make the biggest difference fastest?",
    ),
    ("compare", 1, CC(282, 101, "what is your favorite candy?"), "which is your #1 of all of them though?"),
    (
        "compare",
        2,
        H(
            "Compare three ways to get from Rome to Florence.",
            "Train: the Frecciarossa takes about 1 hour 35 minutes, from around 20 euros if booked "
            "early.\nBus: FlixBus takes 3-3.5 hours, often under 10 euros.\nCar: about 3 hours on the A1 "
            "motorway, plus roughly 20 euros in tolls and the hassle of parking in Florence.",
        ),
        "Which is best with two big suitcases and a toddler?",
    ),
    (
        "compare",
        4,
        SG(2289, 0, "recommend some gift ideas I can give to coworkers"),
        "which of those would a guy who's into hiking appreciate most?",
    ),
    (
        "compare",
        1,
        H("Suggest three names for my new golden retriever puppy.", "1. Maple\n2. Biscuit\n3. Sunny"),
        "which is easiest to yell across a dog park lol",
    ),
    (
        "compare",
        3,
        SG(2443, 0, "What are 10 common events that cause disputes"),
        "which of these is the most common in practice?",
    ),
    (
        "compare",
        5,
        H(
            "What are my options for storing photos long term?",
            "1. Google Photos: easy and searchable, 15 GB free, then from $2 a month.\n"
            "2. iCloud Photos: seamless on Apple devices, 5 GB free, then from $1 a month.\n"
            "3. An external hard drive: a one-time cost of about $60 for 1 TB, but it can fail or get "
            "lost.\n4. Amazon Photos: unlimited full-resolution photos with Prime.",
        ),
        "which of these is safest if i'm worried about a company shutting down?",
    ),
    ("compare", 1, SG(10053, 0, "how do you write a good opinion essay?"), "which step do most students skip?"),
    (
        "compare",
        6,
        H(
            "What are some good beginner instruments for an adult?",
            "Ukulele: cheap, small, and you can play simple songs within a week.\n"
            "Keyboard: great for learning music theory, and you can practise silently with headphones.\n"
            "Acoustic guitar: versatile, but expect sore fingertips for the first month.\n"
            "Cajon: fun for rhythm and easy to pick up.",
        ),
        "realistically which of those could I learn fastest in a small apartment with thin walls?",
    ),
    (
        "compare",
        2,
        SG(1813, 0, "give me some potential effects of coffee"),
        "which of these actually have good evidence behind them?",
    ),
    (
        "compare",
        6,
        H(
            "What are the main differences between a heat pump and a gas furnace?",
            "A heat pump moves heat instead of burning fuel, so it runs on electricity, also cools in "
            "summer, and is usually 2-4 times more efficient, but it costs more up front and loses "
            "efficiency in deep cold. A gas furnace is cheaper to install and works well in any cold, but "
            "needs a gas line, produces emissions, and only heats.",
        ),
        "for a small house in minnesota, which would you pick?",
    ),
    (
        "compare",
        3,
        CC(4388, 74, "what foods have you eaten?"),
        "out of all those cuisines, which one would you eat every day if you had to?",
    ),
    (
        "compare",
        9,
        SG(2201, 0, "What are important things kids could learn"),
        "which of those matter most for a shy four-year-old?",
    ),
    # --- clarify: asks what part of the earlier answer means, or why ----------------------------
    (
        "clarify",
        1,
        H(
            "Is it better to buy a used car from a dealer or a private seller?",
            "For most first-time buyers, a dealer. You'll usually pay a bit more, but you get some legal "
            "protection, the option of a warranty, and help with the paperwork. A private sale is cheaper "
            "if you know what to check, or bring along someone who does.",
        ),
        "why though",
    ),
    (
        "clarify",
        2,
        H(
            "What wine goes with mushroom risotto?",
            "A Pinot Noir is the classic pick: its earthy notes match the mushrooms and its soft tannins "
            "won't fight the creamy rice. If you prefer white, try an oaked Chardonnay or a dry Italian "
            "white like Soave.",
        ),
        "what do you mean by the bit about tannins?",
    ),
    (
        "clarify",
        1,
        H(
            "Is it worth refinancing my mortgage?",
            "It can be if you can lower your rate by about 0.75 to 1 percentage point and you plan to stay "
            "long enough to recover the closing costs, which typically run 2-5% of the loan. Divide the "
            "closing costs by your monthly savings to get your break-even point in months.",
        ),
        "break even point? not sure what that means",
    ),
    (
        "clarify",
        3,
        SG(10259, 0, "Explain like a gangster how to make an omelet."),
        "wait what's 'like you mean it' supposed to mean, how hard do I crack them",
    ),
    (
        "clarify",
        2,
        H(
            "How can I fall asleep faster?",
            "Keep the same wake-up time every day, even on weekends. Stop caffeine after noon, dim the "
            "lights an hour before bed, and keep the bedroom cool, around 18 C. If you're still awake "
            "after 20 minutes, get up and read something dull in low light until you feel sleepy.",
        ),
        "why get up though? wouldnt that wake me up more",
    ),
    ("clarify", 1, CC(1268, 19, "What kind of stuff do you like to do?"), "what kind of latin dancing? like salsa?"),
    (
        "clarify",
        4,
        SG(2298, 0, "how to define my personal values?"),
        "what do you mean by 'consider your relationships'? like friends?",
    ),
    (
        "clarify",
        1,
        H(
            "Do I need to file taxes if I only made $9,000 last year as a student?",
            "Probably not, since that's below the standard deduction for a single filer. But you may want "
            "to file anyway: if any federal tax was withheld from your paychecks, filing is the only way "
            "to get it refunded, and you might qualify for education credits.",
        ),
        "sorry, withheld how? I don't follow",
    ),
    (
        "clarify",
        3,
        SG(272, 0, "What are the most important things for a kindergartner"),
        "when you say emotional regulation, what does that look like for a 5 yo?",
    ),
    (
        "clarify",
        5,
        H(
            "What's the best way to store fresh basil?",
            "Treat it like cut flowers: trim the stems, stand the bunch in a glass of water on the "
            "counter, and loosely cover the leaves with a plastic bag. Don't refrigerate it, since the cold "
            "turns the leaves black within a day.",
        ),
        "hang on, why would the fridge turn it black?",
    ),
    (
        "clarify",
        4,
        H(
            "How often should I replace my running shoes?",
            "Every 500-800 km (300-500 miles) for most people. Heavier runners and those who run on roads "
            "wear them out sooner. Watch for a flattened midsole, creases along the sides, or new aches in "
            "your knees or shins after runs.",
        ),
        "what's a midsole exactly",
    ),
    ("clarify", 2, CC(5207, 20, "What kind of jobs interest you?"), "vfx? what does that stand for"),
    (
        "clarify",
        6,
        H(
            "Should I pay off my car loan early or invest the extra money?",
            "Compare the loan's interest rate with what you'd realistically earn. If the loan is above "
            "about 6-7%, paying it off is a guaranteed return that's hard to beat. If it's below 4%, "
            "investing usually wins over the long run, as long as you already have an emergency fund and "
            "aren't carrying credit card debt.",
        ),
        "you said an emergency fund first, how big should that be?",
    ),
    (
        "clarify",
        6,
        H(
            "Why are the leaves on my fiddle leaf fig turning brown?",
            "Brown spots in the middle of the leaves usually mean root rot from overwatering. Crispy brown "
            "edges usually mean the air is too dry or the watering is uneven. Check the soil: water only "
            "when the top 5 cm are dry, and make sure the pot drains.",
        ),
        "how do i tell if it's root rot or just dry air, like what am i looking for",
    ),
    (
        "clarify",
        1,
        H(
            "What does 'al dente' mean?",
            "It's Italian for 'to the tooth': pasta cooked until it's tender but still has a slight bite "
            "in the center. Start tasting a minute or two before the time on the package.",
        ),
        "wait so is it undercooked??",
    ),
    (
        "clarify",
        9,
        H(
            "Why do my photos look blurry indoors?",
            "Indoors there's less light, so your camera uses a slower shutter speed, and any tiny movement "
            "of your hands or your subject blurs the picture. Turn on more lights, hold the phone steady "
            "with both hands or brace it on something, and tap to focus on the subject before you shoot.",
        ),
        "sorry, one thing: what's a shutter speed?",
    ),
    # --- continue: asks for the next part ----------------------------------------------------------
    (
        "continue",
        1,
        H(
            "Start a bedtime story about a hedgehog who's afraid of the dark.",
            "Once upon a time, at the bottom of a garden, lived a small hedgehog named Pip. Pip loved the "
            "daytime: the warm grass, the buzzing bees, the crunchy beetles for lunch. But every evening, "
            "when the sun slipped behind the fence, Pip curled into a tight, prickly ball and squeezed his "
            "eyes shut, because the dark was full of rustles and shadows he didn't understand.",
        ),
        "keep going",
    ),
    (
        "continue",
        1,
        H(
            "How do I change a flat tire? Just the first few steps for now.",
            "1. Pull over somewhere flat and safe, turn on your hazard lights and set the parking brake.\n"
            "2. Get out the spare, the jack and the lug wrench.\n"
            "3. Loosen the lug nuts half a turn each while the tire is still on the ground.",
        ),
        "ok done, next step?",
    ),
    ("continue", 2, SG(10801, 0, "How to teach someone the Persian language?"), "got it. what's tip number four?"),
    (
        "continue",
        1,
        SG(632, 0, "Create a hypothetical conversation between myself and my cat"),
        "continue it, the cat finally says something besides meow",
    ),
    (
        "continue",
        3,
        H(
            "Teach me the first five numbers in Korean.",
            "Korean has two number systems. For counting things, the native Korean numbers are: 1 hana, "
            "2 dul, 3 set, 4 net, 5 daseot.",
        ),
        "and 6 to 10?",
    ),
    (
        "continue",
        2,
        H(
            "Walk me through making a sourdough starter. Days 1 and 2 only.",
            "Day 1: In a clean jar, mix 50 g whole wheat flour with 50 g lukewarm water until it's a thick "
            "paste. Cover loosely and leave it somewhere warm, around 24-26 C.\nDay 2: You may see a few "
            "bubbles, or nothing at all. That's normal. Leave it alone for now and just give it a stir.",
        ),
        "alright, what happens on day 3",
    ),
    (
        "continue",
        4,
        SG(9976, 0, "Write a funny but polite email to my brother's mother-in-law"),
        "Can you finish that email? It cuts off after the food tip.",
    ),
    (
        "continue",
        1,
        H(
            "Tell me the story of the Titanic in short parts. Part one.",
            "Part one: The RMS Titanic left Southampton on April 10, 1912, on her maiden voyage to New "
            "York. She was the largest ship afloat, with lavish first-class rooms, a gym and a swimming "
            "pool, and was widely described as practically unsinkable. About 2,200 people were on board.",
        ),
        "part two",
    ),
    (
        "continue",
        2,
        H(
            "Give me 5 icebreaker questions for a team meeting.",
            "1. What's a small thing that made you happy this week?\n"
            "2. If you could master any skill overnight, what would it be?\n"
            "3. What's the best meal you've had this year?\n"
            "4. What was your first job?\n"
            "5. Which fictional place would you most like to visit?",
        ),
        "5 more pls",
    ),
    (
        "continue",
        5,
        H(
            "I'm learning to do a pull-up from zero. What should I do in week one?",
            "Week one is about building grip and shoulder strength. Three times this week, do: dead "
            "hangs from the bar, 3 sets of as long as you can hold; scapular pulls (hang and squeeze your "
            "shoulder blades down without bending your arms), 3 sets of 5; and inverted rows under a "
            "sturdy table, 3 sets of 6-8.",
        ),
        "what about the second week, do i add negatives?",
    ),
    ("continue", 1, SG(794, 0, "Write a poem in the style of EE Cummings"), "more stanzas please"),
    (
        "continue",
        3,
        H(
            "Plan a Pacific Coast Highway road trip from San Francisco. Start with the first two days.",
            "Day 1: San Francisco to Santa Cruz (2 hours), then on to Monterey. Walk Cannery Row and see "
            "the aquarium.\nDay 2: Monterey to Big Sur. Drive the 17-Mile Drive in the morning, stop at "
            "Bixby Bridge and McWay Falls, and stay in a cabin in Big Sur.",
        ),
        "love it, then days 3 and 4?",
    ),
    (
        "continue",
        4,
        H(
            "Give me the opening line of a sci-fi novel.",
            '"The day the oceans stopped moving, my grandmother put on her best coat and walked down to '
            'the shore to wait."',
        ),
        "nice, what's the next line",
    ),
    (
        "continue",
        6,
        H(
            "Explain how to knit, starting with casting on.",
            "Start with a long-tail cast-on. Pull out a tail about three times the width of your project, "
            "make a slip knot and put it on one needle. Hold the yarn with the tail over your thumb and "
            "the working yarn over your index finger, then scoop under the thumb loop, over the finger "
            "yarn and back through. Snug it up, and repeat until you have the number of stitches you "
            "need.",
        ),
        "got all 20 on. what do I do now?",
    ),
    (
        "continue",
        5,
        H(
            "Summarize the causes of World War I. Just the first one for now.",
            "The first big cause was militarism: in the decades before 1914, the great powers of Europe "
            "built up huge armies and navies, and Britain and Germany raced to build battleships. Military "
            "planners drew up detailed war plans, such as Germany's Schlieffen Plan, that made it hard to "
            "back down once a crisis began.",
        ),
        "ok I'm ready for the second",
    ),
    (
        "continue",
        9,
        H(
            "What are the rules of chess? Start with how the pieces move, pawns first.",
            "Pawns move straight forward one square, or two squares on their first move. They capture "
            "diagonally, one square forward to the left or right. If a pawn reaches the far side of the "
            "board, it is promoted, usually to a queen.",
        ),
        "ok that makes sense, what about the knight",
    ),
    # --- correction: the user corrects or objects to how the request was read --------------------
    (
        "correction",
        1,
        H(
            "Scale this to 8 servings: 2 cups flour, 1 cup milk, 2 eggs.",
            "For 8 servings, assuming the original makes 4: 4 cups flour, 2 cups milk and 4 eggs.",
        ),
        "no, sorry, I meant scale it DOWN to 2 people",
    ),
    (
        "correction",
        1,
        H(
            "How do I get to the Louvre from Gare du Nord?",
            "Take Metro line 4 towards Mairie de Montrouge to Chatelet, then change to line 1 towards "
            "La Defense and get off at Palais Royal - Musee du Louvre. It takes about 20 minutes.",
        ),
        "ah sorry, i meant on foot, is that doable?",
    ),
    (
        "correction",
        1,
        SG(1281, 0, "create a name for a dating app"),
        "no no, I wanted something that doesn't sound like a robot",
    ),
    (
        "correction",
        3,
        H(
            "What's the time difference between London and New York?",
            "New York is 5 hours behind London for most of the year. For a few weeks in March and in "
            "late October / early November the gap is 4 hours, because the US and the UK change their "
            "clocks on different dates.",
        ),
        "oops I meant New Zealand, not New York",
    ),
    (
        "correction",
        1,
        H(
            "How do I turn off automatic updates on Windows 11?",
            "You can pause them rather than turn them off completely: go to Settings > Windows Update "
            "and choose how long to pause, up to five weeks. For longer control, Windows 11 Pro users "
            "can set a policy in the Group Policy Editor under Windows Update > Manage end user "
            "experience.",
        ),
        "I'm on a Mac actually, my bad",
    ),
    (
        "correction",
        1,
        CC(6259, 26, "What kind of car do you drive?"),
        "haha no I meant what car would you WANT to have",
    ),
    (
        "correction",
        2,
        H(
            "What's a good gift for a 40th birthday?",
            "A few ideas: a framed print of a place that matters to them, a tasting experience (wine, "
            'whisky, cheese), a quality leather weekender bag, or a "40 reasons" jar filled with notes '
            "from friends and family.",
        ),
        "sorry should've said, it's for my nephew turning 4, not 40",
    ),
    (
        "correction",
        1,
        H("What's 15% of 80?", "15% of 80 is 12."),
        "no, I meant 80 is the price after 15% off, what was it before",
    ),
    (
        "correction",
        4,
        H(
            "Recommend a romantic restaurant in Barcelona.",
            "Try Tickets, Albert Adria's playful tapas bar on Avinguda del Parallel. It's lively and "
            "inventive, and booking opens two months ahead. For something quieter, 7 Portes near the "
            "port has been serving paella since 1836 in an old-world dining room.",
        ),
        "hmm I said romantic, something with candles and a view, not a busy tapas bar",
    ),
    (
        "correction",
        3,
        H(
            "Give me a 20-minute home workout.",
            "Warm up for 3 minutes with marching and arm circles. Then do 4 rounds of: 10 squats, 10 "
            "push-ups (knees are fine), 10 reverse lunges per leg, 20 seconds of plank and 30 seconds of "
            "jumping jacks. Cool down with 2 minutes of stretching.",
        ),
        "sorry I forgot to mention I have bad knees and live on the third floor, no jumping please",
    ),
    (
        "correction",
        1,
        H(
            "Translate 'I'm allergic to peanuts' into Spanish.",
            '"Soy alergico al mani" (in Latin America) or "Soy alergico a los cacahuetes" (in '
            'Spain). A woman would say "alergica".',
        ),
        "oh wait, I meant Portuguese, for Brazil",
    ),
    (
        "correction",
        6,
        H(
            "When's the cheapest time to fly to Hawaii?",
            "Mid-April to early June and September to mid-December (outside Thanksgiving) usually have "
            "the lowest fares, because they fall between the winter peak and the summer holidays. Flying "
            "midweek, on Tuesdays or Wednesdays, also tends to be cheaper.",
        ),
        "I should have said: from Sydney, not the US. Does that change things?",
    ),
    (
        "correction",
        2,
        CC(6715, 1, "What superpower do you wish you had, and why?"),
        "haha I asked why too! why flying?",
    ),
    (
        "correction",
        5,
        H(
            "Recommend a good fantasy novel for a 12-year-old.",
            'Try "The Girl Who Drank the Moon" by Kelly Barnhill: a Newbery winner about a witch who '
            "accidentally feeds a baby moonlight, giving her magic. It's warm, funny and a little dark, "
            "and works well read aloud too.",
        ),
        "Actually she's read that one already, and she's more into dragons",
    ),
    (
        "correction",
        7,
        H(
            "How long should I bake chicken thighs?",
            "Bone-in, skin-on thighs take 35-45 minutes at 200 C (400 F), until the internal temperature "
            "reaches 75 C (165 F) and the skin is crisp.",
        ),
        "sorry, forgot to say mine are boneless and skinless",
    ),
    (
        "correction",
        9,
        H(
            "What's the population of Portland?",
            "Portland, Oregon has about 630,000 people in the city and about 2.5 million in the wider metro area.",
        ),
        "oh i meant Portland in Maine, not oregon",
    ),
    # --- constraint: a new constraint on the earlier output --------------------------------------
    (
        "constraint",
        1,
        H(
            "Suggest a quick dinner I can make tonight with pantry staples.",
            "Try a chickpea and spinach curry: fry an onion with garlic and curry powder, add a can of "
            "chickpeas and a can of coconut milk, simmer 10 minutes, and stir in spinach at the end. "
            "Serve with rice or naan.",
        ),
        "great, but my partner hates coconut",
    ),
    (
        "constraint",
        2,
        H(
            "Plan a day in London for a first-time visitor.",
            "Start at Westminster: Big Ben, the Abbey and a walk across the bridge for the view. Walk "
            "the South Bank to Tate Modern and cross the Millennium Bridge to St Paul's. After lunch at "
            "Borough Market, see the Tower of London, then finish with dinner in Covent Garden.",
        ),
        "love this, but my mum uses a wheelchair. does that change anything?",
    ),
    (
        "constraint",
        3,
        H(
            "What should I cook for a dinner party of six?",
            "A make-ahead menu keeps you out of the kitchen: a big green salad with pears and walnuts, "
            "slow-roasted lamb shoulder with rosemary potatoes, and a lemon tart you can buy or bake the "
            "day before.",
        ),
        "Sounds good but two of the guests are vegetarian and one can't do nuts",
    ),
    (
        "constraint",
        1,
        H(
            "Recommend a few podcasts for a long drive.",
            '"Serial" for true crime that changed the genre, "Radiolab" for curious science stories, '
            '"Heavyweight" for funny, moving stories about unresolved moments, and "The Rest Is '
            'History" for two friends talking through big events.',
        ),
        "good list but my kids will be in the car, 8 and 11",
    ),
    (
        "constraint",
        4,
        H(
            "Suggest a budget for a week in Thailand.",
            "For a mid-range trip, budget around $50-70 a day per person: $20-30 for a private room in a "
            "guesthouse, $10-15 for food from markets and local restaurants, and $10-20 for transport and "
            "activities. Add flights, plus extra if you plan island-hopping.",
        ),
        "nice, but we also want to get scuba certified while we're there",
    ),
    (
        "constraint",
        2,
        H(
            "What's a good beginner workout split for the gym?",
            "A three-day full-body split works well: Monday, Wednesday and Friday, each session with a "
            "squat or leg press, a push (bench or push-ups), a pull (rows or lat pulldowns), a hinge "
            "(Romanian deadlifts) and a core exercise, 3 sets of 8-12 each.",
        ),
        "ok but I can only go tuesdays and saturdays",
    ),
    (
        "constraint",
        5,
        H(
            "Give me a packing list for a weekend camping trip.",
            "Tent, sleeping bag and pad; a headlamp with spare batteries; a camp stove, fuel, a lighter "
            "and one pot; water bottles and a filter; food plus snacks; a first-aid kit; layers, a rain "
            "jacket and warm socks; sunscreen and bug spray; a trash bag to pack out everything.",
        ),
        "oh also we're backpacking in, so it all has to fit in a 40 litre bag",
    ),
    (
        "constraint",
        1,
        H(
            "Draft a text inviting my friends to a picnic on Sunday.",
            "Hey all! Picnic in Laurel Park this Sunday from noon, by the big oak near the pond. Bring a "
            "blanket and something to share, I'll handle drinks and the speaker. Let me know if you're "
            "in!",
        ),
        "perfect except no alcohol is allowed there, can you mention that",
    ),
    (
        "constraint",
        3,
        H(
            "What's a good houseplant for my bedroom?",
            "A peace lily is a great choice: it handles low light, droops visibly when it needs water so "
            "you never have to guess, and its white flowers brighten a room.",
        ),
        "oh wait, I have a cat, is that safe?",
    ),
    (
        "constraint",
        6,
        H(
            "Give me an outline for a 10-minute talk on climate change for my class.",
            "1. Hook: a photo of the same glacier in 1920 and today (1 min).\n"
            "2. The basics: greenhouse gases and how they trap heat (2 min).\n"
            "3. What's already changing: heatwaves, sea level, wildfires (3 min).\n"
            "4. What can be done: energy, transport, food (3 min).\n"
            "5. Close: one thing the class can do this month (1 min).",
        ),
        "now I'm told it has to be five minutes, not ten, and no slides allowed",
    ),
    (
        "constraint",
        1,
        H(
            "Suggest a name for my bakery.",
            'How about "Rise & Shine Bakehouse"? It\'s warm, works for a morning crowd, and hints at '
            "the dough rising.",
        ),
        "nice but it has to start with M, my grandma's name is Marta",
    ),
    (
        "constraint",
        4,
        H(
            "Plan a 2-day trip to Amsterdam.",
            "Day 1: the Rijksmuseum in the morning, then Vondelpark, and a canal cruise at sunset.\n"
            "Day 2: the Anne Frank House (book weeks ahead), a wander through the Jordaan's shops and "
            "cafes, and dinner at the Foodhallen.",
        ),
        "thanks! one problem, the anne frank house is sold out for our dates",
    ),
    (
        "constraint",
        6,
        H(
            "How much house can I afford on an $85,000 salary?",
            "A common guideline is a home price of about three to four times your income, so roughly "
            "$255,000-$340,000, assuming a 10-20% down payment, a 30-year mortgage around 7%, and little "
            "other debt. Lenders also like your total debt payments to stay under about 36% of your gross "
            "income.",
        ),
        "should've mentioned I have $600 a month in student loans, does that shift the number much?",
    ),
    (
        "constraint",
        2,
        H(
            "What's a healthy breakfast I can grab on the go?",
            "Overnight oats are hard to beat: mix oats, milk or yogurt, chia seeds and fruit in a jar the "
            "night before. Other options are a hard-boiled egg with a banana, or a whole-grain wrap with "
            "peanut butter.",
        ),
        "i'm lactose intolerant and allergic to peanuts tho",
    ),
    (
        "constraint",
        5,
        H(
            "Which used SUV is most reliable under $20k?",
            "A 2017-2019 Toyota RAV4 or Honda CR-V is the safest bet: both regularly top reliability "
            "surveys and hold up well past 150,000 miles. The Mazda CX-5 from the same years is a close "
            "third and more fun to drive.",
        ),
        "forgot to say i need three rows of seats, we have four kids",
    ),
    (
        "constraint",
        9,
        H(
            "Give me an idea for a rainy-day activity for kids.",
            "Build a blanket fort in the living room, then turn it into a reading den with flashlights "
            "and a stack of picture books. Snacks served through the 'door' are mandatory.",
        ),
        "Good idea but mine are 14 and 16, they'll laugh at me",
    ),
    # --- reformat: asks for the earlier content in another form ----------------------------------
    (
        "reformat",
        1,
        H(
            "Compare the iPhone 15 and Pixel 8 cameras.",
            "Both take excellent photos. The Pixel 8 has slightly better night shots and Google's editing "
            "tricks like Magic Eraser and Best Take. The iPhone 15 records more consistent video, "
            "especially in 4K at 60 fps, and its colors look more natural to some people. For zoom, both "
            "offer 2x optical-quality crops.",
        ),
        "can you put that in a table",
    ),
    ("reformat", 2, SG(10973, 0, "How can I lower my wildfire risk?"), "tl;dr?"),
    (
        "reformat",
        3,
        H(
            "I'm starting antibiotics tomorrow. Anything I should know?",
            "Take every dose, even once you feel better, and space them evenly through the day. Ask your "
            "pharmacist whether to take them with food, and avoid alcohol if the label says so. Some "
            "antibiotics make the pill less effective, and some make you sensitive to sunlight. Call your "
            "doctor if you get a rash, swelling or severe diarrhea.",
        ),
        "turn all that into a checklist i can stick on the fridge",
    ),
    (
        "reformat",
        4,
        H(
            "What do I need to do before traveling abroad with my dog?",
            "Start at least four months ahead. Your dog will typically need a microchip, a rabies "
            "vaccination given after the chip, and for many countries a rabies antibody blood test. Check "
            "the destination's import rules and your airline's pet policy, book the pet spot early, and "
            "get an official health certificate from your vet within 10 days of travel.",
        ),
        "Can you lay that out as a timeline?",
    ),
    (
        "reformat",
        1,
        H(
            "Explain how compound interest works.",
            "Compound interest means you earn interest on your interest. If you invest $1,000 at 5% a "
            "year, you have $1,050 after one year. In year two, you earn 5% on $1,050, not $1,000, so you "
            "end with $1,102.50. Over 30 years, the same $1,000 grows to about $4,322 without adding "
            "anything.",
        ),
        "summarize that in one sentence for my kid",
    ),
    (
        "reformat",
        1,
        H(
            "What should I do in the month before moving house?",
            "Four weeks out: book movers or a van, start decluttering, and order boxes. Three weeks: "
            "change your address with banks, employers and subscriptions, and arrange utility transfers. "
            "Two weeks: pack rooms you rarely use, and confirm parking for the truck. The final week: pack "
            "essentials in one bag, defrost the freezer, and take meter readings on moving day.",
        ),
        "Bullet points please, grouped by week",
    ),
    (
        "reformat",
        3,
        H(
            "Should I learn Spanish or French first?",
            "Spanish is usually quicker for English speakers: spelling matches pronunciation, and it's "
            "spoken by over 500 million people, especially across the Americas. French has trickier "
            "pronunciation and spelling, but it's useful in Europe, Canada and much of Africa, and it "
            "shares a lot of vocabulary with English.",
        ),
        "Can you give me that as a pros and cons list for each?",
    ),
    (
        "reformat",
        5,
        H(
            "I have a job interview Thursday. How should I prepare?",
            "Research the company's products, recent news and values. Reread the job description and "
            "prepare a short story from your experience for each main requirement, using the "
            'situation-task-action-result format. Practise your answer to "tell me about yourself", '
            "prepare two or three questions to ask them, plan your route or test your video setup, and "
            "lay out your clothes the night before.",
        ),
        "make a day-by-day plan out of that for monday to wednesday",
    ),
    ("reformat", 1, SG(310, 0, "Create 10 awesome, clickbait"), "sort those from shortest to longest"),
    (
        "reformat",
        2,
        H(
            "What's the difference between HMO and PPO health plans?",
            "An HMO usually has lower premiums and costs, but you must use doctors in its network and "
            "need a referral from your primary care doctor to see a specialist. A PPO costs more but lets "
            "you see specialists without a referral and covers out-of-network care, at a higher price.",
        ),
        "can you make a little comparison chart",
    ),
    (
        "reformat",
        6,
        H(
            "When and how should I plant tomatoes?",
            "Plant them outside after your last frost date, once nights stay above 10 C (50 F). Pick a "
            "spot with at least 6-8 hours of sun, dig a deep hole and bury the stem up to the first "
            "leaves, since tomatoes grow roots along the buried stem. Water deeply at planting, add a "
            "stake or cage right away, and mulch to keep the soil evenly moist.",
        ),
        "can I get those instructions as numbered steps? easier to follow outside with muddy hands",
    ),
    (
        "reformat",
        3,
        H(
            "How does two-factor authentication work?",
            "Two-factor authentication asks for two different kinds of proof when you log in: something "
            "you know, like your password, and something you have, like your phone. After you type your "
            "password, the site sends a code to your phone or asks an authenticator app for one, so a "
            "stolen password alone isn't enough to get into your account.",
        ),
        "Could you turn that into a short FAQ, 3 questions?",
    ),
    (
        "reformat",
        4,
        H(
            "Tell me about the health benefits of walking.",
            "Regular brisk walking, about 30 minutes a day, lowers the risk of heart disease, type 2 "
            "diabetes and some cancers, helps control blood pressure and weight, and strengthens bones "
            "and muscles. It also improves mood and sleep, and studies link it to a lower risk of "
            "dementia.",
        ),
        "summarize what you told me in 3 bullets",
    ),
    (
        "reformat",
        5,
        H(
            "Which is better value: a prepaid or a contract phone plan?",
            "Prepaid is usually better value if you bring your own phone: no credit check, no long "
            "commitment, and plans from about $15-30 a month. A contract can make sense if you want a new "
            "phone paid off over two years with a discount, but you're locked in and the total cost is "
            "often higher.",
        ),
        "make that a quick yes/no decision tree for my mom",
    ),
    (
        "reformat",
        8,
        H(
            "How do I make a basic vinaigrette?",
            "Whisk 1 tablespoon of vinegar (red wine, sherry or balsamic), 1 teaspoon of Dijon mustard "
            "and a pinch of salt, then slowly whisk in 3 tablespoons of olive oil until it thickens. "
            "Taste, add pepper or a little honey, and adjust. The 3-to-1 ratio of oil to acid is the thing "
            "to remember.",
        ),
        "could you rewrite the dressing method as an ingredients list plus steps, like a recipe card",
    ),
    (
        "reformat",
        10,
        H(
            "What's the difference between weather and climate?",
            "Weather is what the atmosphere is doing right now or this week: rain, temperature, wind. "
            "Climate is the long-term pattern of weather in a place, usually averaged over 30 years. A "
            "cold day doesn't tell you much about climate, just as one good day doesn't tell you about a "
            "person's mood over a year.",
        ),
        "that weather vs climate explanation from way back, can you make it into a two-line flashcard?",
    ),
    # --- ack_question: an acknowledgement, then a question about the earlier output --------------
    (
        "ack_question",
        1,
        H("Give me three names for a bookstore cafe.", "1. Chapter & Bean\n2. The Dog-Eared Cup\n3. Inkwell Cafe"),
        "love these!! is the second one too silly for a real shop?",
    ),
    (
        "ack_question",
        1,
        H("Write a slogan for my window cleaning business.", '"We make your view the best part of your day."'),
        "oh that's perfect. would it fit on a van door?",
    ),
    (
        "ack_question",
        2,
        H(
            "What's a good wine to bring to a friend's barbecue?",
            "A chilled Grenache-based rose or a fruity Zinfandel both go well with grilled meat and "
            "are easy to like. Around $15-20 gets you a very good bottle of either.",
        ),
        "perfect, thanks! should I bring it cold or let them deal with that?",
    ),
    (
        "ack_question",
        1,
        CC(3423, 27, "What do you like to do outside of industrial design?"),
        "haha love that list. how did you get into photography?",
    ),
    (
        "ack_question",
        3,
        H(
            "Recommend a sci-fi book for someone who mostly reads romance.",
            'Try "The Time Traveler\'s Wife" by Audrey Niffenegger, a love story built around a man '
            'who slips through time against his will. Or "This Is How You Lose the Time War", a '
            "short, lyrical novel told in letters between two rival agents who fall in love.",
        ),
        "ooh thank you! is the first one very sad? I cry easily",
    ),
    (
        "ack_question",
        1,
        CC(5549, 68, "if you can be in a fantasy world what world would you choose?"),
        "omg same!! which dragon would you want?",
    ),
    (
        "ack_question",
        2,
        H(
            "Help me come up with a name for my sourdough starter.",
            'How about "Clint Yeastwood"? Other options: "Bread Pitt", "Doughlores" or "Yeasty Boys".',
        ),
        "hahaha I'm crying. do people actually do this?",
    ),
    (
        "ack_question",
        4,
        H(
            "Suggest a hidden-gem town to visit in Portugal.",
            "Try Monsaraz, a tiny walled village on a hilltop in the Alentejo. It has whitewashed "
            "houses, a castle with views over the Alqueva lake, and very few tourists. It's about two "
            "hours from Lisbon by car and magical at sunset.",
        ),
        "sounds dreamy, thank you! can I get there without a car?",
    ),
    (
        "ack_question",
        1,
        H(
            "Write a haiku about Monday mornings.",
            "Alarm's second cry\ncoffee steam and unread mail\nthe week clears its throat",
        ),
        "ha, love it. what's the syllable rule again?",
    ),
    (
        "ack_question",
        2,
        CC(3453, 5, "What are you doing with your break?"),
        "haha that sounds like a great break! was it a musical?",
    ),
    (
        "ack_question",
        5,
        H(
            "Suggest a color palette for a calm home office.",
            "Try a soft sage green on the walls, warm white trim, natural oak furniture and accents in "
            "muted terracotta. Green reads as calm and focused, and the terracotta keeps it from "
            "feeling cold.",
        ),
        "oh I love that, thanks. would it work with a grey carpet?",
    ),
    (
        "ack_question",
        3,
        H(
            "Give me a theme idea for my 30th birthday party.",
            'Host a "decades" party: guests dress from the decade they were born in or their '
            "favorite one, with a playlist that jumps from the 70s to the 2000s and a photo corner "
            "with props for each era.",
        ),
        "yesss great idea! would a 90s-only version be more fun?",
    ),
    (
        "ack_question",
        6,
        H(
            "What's a good first investment for someone with $500?",
            "A low-cost broad index fund or ETF, such as one that tracks the total US stock market, is "
            "a sensible start: instant diversification, tiny fees, and many brokers have no minimums "
            "and allow fractional shares. Make sure you have a small emergency cushion first.",
        ),
        "thanks, super helpful! do i pay tax on it if i never sell?",
    ),
    (
        "ack_question",
        2,
        H(
            "Name ideas for a podcast about gardening for beginners?",
            "1. Dirt Simple\n2. The Accidental Gardener\n3. Root for It\n4. Beginner's Bloom",
        ),
        "haha love the third one. would it be confusing outside the US?",
    ),
    (
        "ack_question",
        5,
        H(
            "Recommend a board game for two players.",
            "Patchwork is a great pick: a quick, cozy puzzle game where you compete to build the best "
            "quilt. Games take about 30 minutes and the rules take five minutes to learn.",
        ),
        "ooh sounds fun, thank you! is it ok for a 7 year old?",
    ),
    (
        "ack_question",
        8,
        H(
            "Write a short welcome message for new members of our book club.",
            "Welcome to the Tuesday Night Readers! We meet on the first Tuesday of each month at the "
            "Hill Street library at 7pm. Bring the month's book, an opinion and, if you like, a snack "
            "to share. No spoilers before the meeting, and no one minds if you didn't finish.",
        ),
        "Lovely, thanks! Should I mention we're starting with Piranesi?",
    ),
]
